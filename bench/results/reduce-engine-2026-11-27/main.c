#define _GNU_SOURCE
#include <gridtune/kernel.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>
#define N 8192
gt_workgroup_fn *get_red_old(void), *get_red_new(void);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static float *S,*SUM;
static void twin(void){ size_t stretch=16*(size_t)N, groups=N/16;
#pragma omp parallel for schedule(static)
    for(size_t g=0;g<groups;g++){float s=0;
#pragma omp simd reduction(+:s)
        for(size_t i=0;i<stretch;i++) s+=S[g*stretch+i];
        SUM[g]=s;} }
static void kern(gt_workgroup_fn *fn){ size_t groups=N/16; int32_t n=N; void *args[3]={&SUM,&S,&n};
#pragma omp parallel
    { gt_group_ctx ctx={.dims=1,.span=1,.global_size={16*(size_t)N,1,1},.local_size={256,1,1},.num_groups={groups,1,1},.walk=GT_WALK_LINEAR,.nitems=256};
#pragma omp for schedule(dynamic,1)
      for(size_t g=0;g<groups;g++){ctx.group_id[0]=g;fn(&ctx,args);} } }
static void k_old(void){kern(get_red_old());} static void k_new(void){kern(get_red_new());}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(void){ size_t bytes=(size_t)N*N*4;
    S=aligned_alloc(1<<21,bytes); madvise(S,bytes,MADV_HUGEPAGE); SUM=malloc(N/16*4);
    for(size_t i=0;i<(size_t)N*N;i++)S[i]=(float)(i%7);
    void(*f[])(void)={twin,k_old,k_new}; const char*nm[]={"twin static","GT sized, header now","GT sized, counted runs"};
    enum{V=3,R=41}; double t[V][R]; double chk[V];
    for(int r=0;r<R;r++)for(int v=0;v<V;v++){double s=now();f[v]();t[v][r]=now()-s; chk[v]=SUM[7]+SUM[N/16-1];}
    for(int v=0;v<V;v++){qsort(t[v],R,8,cmp);printf("%-24s %7.2f ms  (min %.2f) check %g\n",nm[v],t[v][R/2],t[v][0],chk[v]);}
    printf("old/new %.3f  twin/new %.3f\n", t[1][R/2]/t[2][R/2], t[0][R/2]/t[2][R/2]);
}
