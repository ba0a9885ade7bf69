#define _GNU_SOURCE
#include <gridtune/kernel.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N 1088
gt_workgroup_fn *get_mm_old(void), *get_mm_new(void);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static float *A,*B,*C;
static void kern(gt_workgroup_fn *fn){ size_t g=N/16; int32_t n=N; void *args[4]={&C,&A,&B,&n};
#pragma omp parallel
    { gt_group_ctx ctx={.dims=2,.span=1,.global_size={N,N,1},.local_size={16,16,1},.num_groups={g,g,1},.walk=GT_WALK_LINEAR,.nitems=256};
#pragma omp for schedule(dynamic,1)
      for(size_t id=0;id<g*g;id++){ctx.group_id[0]=id%g;ctx.group_id[1]=id/g;fn(&ctx,args);} } }
static void k_old(void){kern(get_mm_old());} static void k_new(void){kern(get_mm_new());}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(void){ size_t w=N; A=aligned_alloc(64,w*w*4);B=aligned_alloc(64,w*w*4);C=aligned_alloc(64,w*w*4);
    for(size_t i=0;i<w*w;i++){A[i]=(float)(i%7)-3;B[i]=(float)(i%5)-2;}
    void(*f[])(void)={k_old,k_new}; const char*nm[]={"header now","counted runs"};
    enum{V=2,R=15}; double t[V][R]; double chk[V];
    for(int r=0;r<R;r++)for(int v=0;v<V;v++){double s=now();f[v]();t[v][r]=now()-s; chk[v]=C[12345]+C[w*w-1];}
    for(int v=0;v<V;v++){qsort(t[v],R,8,cmp);printf("%-24s %7.2f ms  (min %.2f) check %g\n",nm[v],t[v][R/2],t[v][0],chk[v]);}
    printf("old/new %.3f\n", t[0][R/2]/t[1][R/2]);
}
