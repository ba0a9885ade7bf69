#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <omp.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void cp(char*d,const char*s,size_t n){
#pragma omp parallel for schedule(static) num_threads(2)
 for(int i=0;i<2;i++) memcpy(d+i*(n/2),s+i*(n/2),n/2);}
int main(void){
 size_t n=256u<<20;
 char *src=aligned_alloc(2<<20,n); madvise(src,n,MADV_HUGEPAGE); memset(src,1,n);
 char *d4=malloc(n); memset(d4,0,n);
 char *dh=aligned_alloc(2<<20,n); madvise(dh,n,MADV_HUGEPAGE); memset(dh,0,n);
 char *big=aligned_alloc(2<<20,4*n); madvise(big,4*n,MADV_HUGEPAGE); memset(big,0,4*n);
 char *bigsrc=aligned_alloc(2<<20,4*n); madvise(bigsrc,4*n,MADV_HUGEPAGE); memset(bigsrc,2,4*n);
 for(int r=0;r<5;r++){
  double t0=now(); cp(d4,src,n); double t1=now(); cp(dh,src,n); double t2=now(); cp(big,bigsrc,4*n); double t3=now();
  printf("256MiB to 4K-page dst %.1f ms (%.1f GB/s read)  to huge dst %.1f ms (%.1f)  1GiB huge->huge %.1f ms (%.1f GB/s r+w)\n",
   t1-t0, n/1e6/(t1-t0), t2-t1, n/1e6/(t2-t1), t3-t2, 8.0*n/1e6/(t3-t2));
 }
}
