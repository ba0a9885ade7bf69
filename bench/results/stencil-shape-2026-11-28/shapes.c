#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
#define LW 256
#define LH 4
static void omp_rows(float *out,const float *in,size_t n){
  size_t w=n+2;
#pragma omp parallel for schedule(static)
  for(size_t y=0;y<n;y++) for(size_t x=0;x<n;x++){size_t at=(y+1)*w+x+1;
    out[y*n+x]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}
}
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void tiles(float *out,const float *in,size_t n, int direct){
  size_t w=n+2, gx=n/LW, gy=n/LH;
#pragma omp parallel for schedule(static)
  for(size_t g=0;g<gx*gy;g++){
    float t[(LW+2)*(LH+2)] __attribute__((aligned(64)));
    size_t x0=(g%gx)*LW,y0=(g/gx)*LH,tw=LW+2;
    if(!direct){
    for(size_t r=0;r<LH+2;r++) for(size_t i=0;i<tw;i++) t[r*tw+i]=in[(y0+r)*w+x0+i];
    for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++){size_t at=(ly+1)*tw+lx+1;
      out[(y0+ly)*n+x0+lx]=0.5f*t[at]+0.125f*(t[at-tw]+t[at+tw]+t[at-1]+t[at+1]);}
    } else {
    for(size_t ly=0;ly<LH;ly++) for(size_t lx=0;lx<LW;lx++){size_t at=(y0+ly+1)*w+x0+lx+1;
      out[(y0+ly)*n+x0+lx]=0.5f*in[at]+0.125f*(in[at-w]+in[at+w]+in[at-1]+in[at+1]);}
    }
  }
}
int main(int c,char**v){size_t n=c>1?atoi(v[1]):8192;
 float*in=aligned_alloc(64,(n+2)*(n+2)*4),*out=aligned_alloc(64,n*n*4);
 memset(in,1,(n+2)*(n+2)*4);memset(out,0,n*n*4);
 double a[15],b[15],d[15];
 for(int r=0;r<15;r++){double t0=now();omp_rows(out,in,n);double t1=now();tiles(out,in,n,0);double t2=now();tiles(out,in,n,1);double t3=now();a[r]=t1-t0;b[r]=t2-t1;d[r]=t3-t2;}
 int cmp(const void*x,const void*y){double p=*(double*)x,q=*(double*)y;return p<q?-1:p>q;}
 qsort(a,15,8,cmp);qsort(b,15,8,cmp);qsort(d,15,8,cmp);
 printf("n=%zu omp rows %.2f  tiles staged %.2f (%.2f)  tiles direct %.2f (%.2f)\n",n,a[7],b[7],b[7]/a[7],d[7],d[7]/a[7]);}
