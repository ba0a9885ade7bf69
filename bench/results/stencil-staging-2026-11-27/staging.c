/* The 5-point stencil three ways in plain C with OpenMP over rows of tiles (LW x LH, given at
 * compile time): direct reads (as the OpenMP twin), the tile and halo staged in a local array as
 * kernels/seeds.c stages them (s1: halo rows, halo columns, then the tile), and staged a whole
 * row of tile and halo at a time (s2). Prints ms per sweep of an 8192 x 8192 grid. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void *alloc(size_t b){void*p;posix_memalign(&p,1<<21,b);madvise(p,b,MADV_HUGEPAGE);memset(p,1,b);return p;}
#define TW (LW+2)
__attribute__((noinline)) static void direct(float*restrict out,const float*restrict in,size_t n){size_t w=n+2;
#pragma omp parallel for schedule(dynamic,4)
 for(size_t gy=0;gy<n;gy+=LH)for(size_t gx=0;gx<n;gx+=LW)for(size_t y=gy;y<gy+LH;y++)for(size_t x=gx;x<gx+LW;x++){size_t at=(y+1)*w+x+1;out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}}
static inline void compute(float*restrict out,const float*t,size_t n,size_t gx,size_t gy){
 for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++){size_t at=(j+1)*TW+i+1;out[(gy+j)*n+gx+i]=0.5f*t[at]+0.125f*(t[at-TW]+t[at+TW]+t[at-1]+t[at+1]);}}
__attribute__((noinline)) static void s1(float*restrict out,const float*restrict in,size_t n){size_t w=n+2;
#pragma omp parallel for schedule(dynamic,4)
 for(size_t gy=0;gy<n;gy+=LH){float t[TW*(LH+2)];for(size_t x0=0;x0<n;x0+=LW){size_t y0=gy;
  for(size_t i=0;i<LW;i++){t[i+1]=in[y0*w+x0+i+1];t[(LH+1)*TW+i+1]=in[(y0+LH+1)*w+x0+i+1];}
  for(size_t j=0;j<LH;j++){t[(j+1)*TW]=in[(y0+j+1)*w+x0];t[(j+1)*TW+LW+1]=in[(y0+j+1)*w+x0+LW+1];}
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++)t[(j+1)*TW+i+1]=in[(y0+j+1)*w+x0+i+1];
  compute(out,t,n,x0,gy);}}}
__attribute__((noinline)) static void s2(float*restrict out,const float*restrict in,size_t n){size_t w=n+2;
#pragma omp parallel for schedule(dynamic,4)
 for(size_t gy=0;gy<n;gy+=LH){float t[TW*(LH+2)];for(size_t x0=0;x0<n;x0+=LW){size_t y0=gy;
  for(size_t r=0;r<LH+2;r++)for(size_t i=0;i<TW;i++)t[r*TW+i]=in[(y0+r)*w+x0+i];
  compute(out,t,n,x0,gy);}}}
int main(void){size_t n=8192;float*in=alloc((n+2)*(n+2)*4),*out=alloc(n*n*4);
 for(int r=0;r<4;r++){double t0=now();direct(out,in,n);double t1=now();s1(out,in,n);double t2=now();s2(out,in,n);double t3=now();
 printf("%dx%d direct %.1f  s1 %.1f  s2 %.1f\n",LW,LH,t1-t0,t2-t1,t3-t2);}}
