#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
#define N 8192
#define LW 256
#define LH 4
static void direct(float *out,const float *in){size_t n=N,w=n+2;
#pragma omp parallel for schedule(static,4)
 for(size_t y=0;y<n;y++)for(size_t x=0;x<n;x++){size_t at=(y+1)*w+x+1;out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}}
static void tiles_direct(float *out,const float *in){size_t n=N,w=n+2,gx=n/LW,gy=n/LH;
#pragma omp parallel for schedule(static)
 for(size_t g=0;g<gx*gy;g++){size_t x0=(g%gx)*LW,y0=(g/gx)*LH;
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++){size_t y=y0+j,x=x0+i,at=(y+1)*w+x+1;out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}}}
static void tiles_staged(float *out,const float *in){size_t n=N,w=n+2,gx=n/LW,gy=n/LH;
#pragma omp parallel
 { float t[(LW+2)*(LH+2)] __attribute__((aligned(64))); const size_t tw=LW+2;
#pragma omp for schedule(static)
 for(size_t g=0;g<gx*gy;g++){size_t x0=(g%gx)*LW,y0=(g/gx)*LH;
  for(size_t i=0;i<LW;i++){t[i+1]=in[y0*w+x0+i+1];t[(LH+1)*tw+i+1]=in[(y0+LH+1)*w+x0+i+1];}
  for(size_t j=0;j<LH;j++){t[(j+1)*tw]=in[(y0+j+1)*w+x0];t[(j+1)*tw+LW+1]=in[(y0+j+1)*w+x0+LW+1];}
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++)t[(j+1)*tw+i+1]=in[(y0+j+1)*w+x0+i+1];
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++){size_t at=(j+1)*tw+i+1;out[(y0+j)*n+x0+i]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}}}}
static void tiles_staged_nohalo(float *out,const float *in){size_t n=N,w=n+2,gx=n/LW,gy=n/LH;
#pragma omp parallel
 { float t[(LW+2)*(LH+2)] __attribute__((aligned(64))); const size_t tw=LW+2; memset(t,0,sizeof t);
#pragma omp for schedule(static)
 for(size_t g=0;g<gx*gy;g++){size_t x0=(g%gx)*LW,y0=(g/gx)*LH;
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++)t[(j+1)*tw+i+1]=in[(y0+j+1)*w+x0+i+1];
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++){size_t at=(j+1)*tw+i+1;out[(y0+j)*n+x0+i]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}}}}
static void tiles_staged_aligned(float *out,const float *in){size_t n=N,w=n+2,gx=n/LW,gy=n/LH;
#pragma omp parallel
 { const size_t tw=LW+16; float t[(LW+16)*(LH+2)] __attribute__((aligned(64)));
#pragma omp for schedule(static)
 for(size_t g=0;g<gx*gy;g++){size_t x0=(g%gx)*LW,y0=(g/gx)*LH;
  for(size_t j=0;j<LH+2;j++)for(size_t i=0;i<LW+2;i++)t[j*tw+i+7]=in[(y0+j)*w+x0+i];
  for(size_t j=0;j<LH;j++)for(size_t i=0;i<LW;i++){size_t at=(j+1)*tw+i+8;out[(y0+j)*n+x0+i]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}}}}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(void){size_t n=N,w=n+2;float*in=aligned_alloc(64,w*w*4),*out=aligned_alloc(64,n*n*4);
 for(size_t i=0;i<w*w;i++)in[i]=(float)(i%97);memset(out,0,n*n*4);
 void(*f[5])(float*,const float*)={direct,tiles_direct,tiles_staged,tiles_staged_nohalo,tiles_staged_aligned};const char*nm[5]={"omp direct rows","omp 256x4 tiles direct","omp 256x4 tiles staged","staged interior only","staged rows+halo in one loop"};
 double t[5][15];for(int r=0;r<15;r++)for(int k=0;k<5;k++){double a=now();f[k](out,in);t[k][r]=now()-a;}
 for(int k=0;k<5;k++){qsort(t[k],15,sizeof(double),cmp);printf("%-26s median %.2f ms (min %.2f)\n",nm[k],t[k][7],t[k][0]);}
 return 0;}
