/* staging.c: what staging a 5-point stencil's tile and halo through local memory costs on
 * this CPU, outside gridtune: the plain loop the OpenMP twin runs (plain), the same work cut
 * into 256x4 workgroups read straight from the input (groups_direct), the workgroups staging
 * tile and halo in a local array first as seeds.c's stencil5 does (groups_tile), and the same
 * prefetching the next workgroup's rows (tile_prefetch). n = 8192, 2 OpenMP threads, 7 rounds
 * each running every variant, median and minimum. MEMFD=1 puts both arrays in shared memfd
 * mappings, as gridtuned's buffers are. Build: gcc -D_GNU_SOURCE -O3 -fopenmp staging.c */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
#define N 8192
static size_t n=N, w=N+2;
static float *in,*out;
static void plain(void){
#pragma omp parallel for schedule(static,4)
 for(size_t y=0;y<n;y++) for(size_t x=0;x<n;x++){size_t at=(y+1)*w+x+1; out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}
}
static size_t LW=256, LH=4;
static void groups_direct(void){
 size_t gx=n/LW, gy=n/LH;
#pragma omp parallel for schedule(static)
 for(size_t g=0;g<gx*gy;g++){ size_t x0=(g%gx)*LW, y0=(g/gx)*LH;
  for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++){size_t x=x0+lx,y=y0+ly,at=(y+1)*w+x+1; out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}}
}
static void groups_tile(void){
 size_t gx=n/LW, gy=n/LH;
#pragma omp parallel
 { float t[(1024+2)*(64+2)] __attribute__((aligned(64)));
#pragma omp for schedule(static)
 for(size_t g=0;g<gx*gy;g++){ size_t x0=(g%gx)*LW, y0=(g/gx)*LH, tw=LW+2;
  for(size_t i=0;i<LW;i++){t[i+1]=in[y0*w+x0+i+1]; t[(LH+1)*tw+i+1]=in[(y0+LH+1)*w+x0+i+1];}
  for(size_t j=0;j<LH;j++){t[(j+1)*tw]=in[(y0+j+1)*w+x0]; t[(j+1)*tw+LW+1]=in[(y0+j+1)*w+x0+LW+1];}
  for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++) t[(ly+1)*tw+lx+1]=in[(y0+ly+1)*w+x0+lx+1];
  for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++){size_t at=(ly+1)*tw+lx+1; out[(y0+ly)*n+x0+lx]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}
 }}
}
static void groups_tile_pf(void){
 size_t gx=n/LW, gy=n/LH;
#pragma omp parallel
 { float t[(1024+2)*(64+2)] __attribute__((aligned(64)));
#pragma omp for schedule(static)
 for(size_t g=0;g<gx*gy;g++){ size_t x0=(g%gx)*LW, y0=(g/gx)*LH, tw=LW+2;
  for(size_t i=0;i<LW;i++){t[i+1]=in[y0*w+x0+i+1]; t[(LH+1)*tw+i+1]=in[(y0+LH+1)*w+x0+i+1];}
  for(size_t j=0;j<LH;j++){t[(j+1)*tw]=in[(y0+j+1)*w+x0]; t[(j+1)*tw+LW+1]=in[(y0+j+1)*w+x0+LW+1];}
  for(size_t ly=0;ly<LH+2;ly++) for(size_t lx=0;lx<LW;lx+=16) __builtin_prefetch(&in[(y0+ly)*w+x0+LW+lx]);
  for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++) t[(ly+1)*tw+lx+1]=in[(y0+ly+1)*w+x0+lx+1];
  for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++){size_t at=(ly+1)*tw+lx+1; out[(y0+ly)*n+x0+lx]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}
 }}
}
int main(int argc,char**argv){
 if(argc>2){LW=atoi(argv[1]);LH=atoi(argv[2]);}
 if(getenv("MEMFD")){ int a=memfd_create("in",0), b=memfd_create("out",0); ftruncate(a,w*w*4); ftruncate(b,n*n*4);
   in=mmap(0,w*w*4,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_POPULATE,a,0); out=mmap(0,n*n*4,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_POPULATE,b,0); }
 else { in=aligned_alloc(1<<21,(w*w*4+(1<<21))&~((size_t)(1<<21)-1)); out=aligned_alloc(1<<21,n*n*4); }

 for(size_t i=0;i<w*w;i++) in[i]=(float)(i%97); memset(out,0,n*n*4);
 void (*f[])(void)={plain,groups_direct,groups_tile,groups_tile_pf}; const char*nm[]={"plain","groups_direct","groups_tile","tile_prefetch"};
 double best[4][7]; 
 for(int r=0;r<7;r++) for(int k=0;k<4;k++){double t0=now(); f[k](); best[k][r]=now()-t0;}
 for(int k=0;k<4;k++){ double *b=best[k]; for(int i=0;i<7;i++)for(int j=i+1;j<7;j++) if(b[j]<b[i]){double x=b[i];b[i]=b[j];b[j]=x;} printf("%-14s median %.1f ms (min %.1f)\n",nm[k],b[3],b[0]);}
}
