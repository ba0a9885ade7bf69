/* split2.c (not part of the build): warm launches of one seed through several gridtuneds
 * (sockets in argv, after ROUNDS and a forced schedule or "-"), interleaved, each timed on the
 * client's clock around gt_run (wall) and by its report's phases.total_ns (the executor's
 * batches); with no BENCH, copy_rows and an OpenMP copy on the client's mapping of the same
 * buffers each round (INTEGRAL=1 BENCH=integral_rows: the running sum; THP=1: on the case's own
 * huge-page buffers; POISON=1: the output written just before, as the peer bench does).
 * Build: gcc -O3 -fopenmp -Ikernels -Iinclude -I. split2.c build/release/kernels/libgt_seeds_client.a
 *   build/release/kernels/libgt_seedbench.a build/release/kernels/libgt_say.a
 *   -Lbuild/release/client -lgridtune -lcjson -lm -Wl,-rpath,build/release/client
 * Run against gridtuneds started with --refine off and their own --socket and --wisdom. */
#define _GNU_SOURCE
#include "seeds_client.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void copy(float *out,const float*in,size_t n){
#pragma omp parallel for schedule(dynamic,64) num_threads(2)
  for(size_t y=0;y<n;y++){for(size_t x=0;x<n;x++){out[y*n+x]=in[y*n+x];}}}
static void integral(uint32_t *out,const uint32_t*in,size_t n){
#pragma omp parallel for schedule(dynamic,16) num_threads(2)
  for(size_t y=0;y<n;y++){uint32_t s=0;for(size_t x=0;x<n;x++){s+=in[y*n+x];out[y*n+x]=s;}}}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double med(double*v,int n){qsort(v,n,sizeof *v,cmp);return v[n/2];}
int main(int argc,char**argv){
  int R = atoi(argv[1]); const char *sched = strcmp(argv[2], "-") ? argv[2] : NULL;
  int D = argc - 3; gt_client *c[8]; cli_seed s[8] = {0};
  gt_launch_options o = gt_launch_options_default(); o.schedule = sched;
  char *rep = NULL; uint64_t ns;
  for (int d = 0; d < D; d++) {
    if (gt_connect(argv[3 + d], &c[d])) { fprintf(stderr,"connect %s\n", argv[3+d]); return 1; }
    if (cli_seed_open(c[d], cli_seeds_module(), gt_seed_bench_find(getenv("BENCH") ? getenv("BENCH") : "copy_rows"), 0, &s[d])) return 1;
    if (cli_seed_run(&s[d], "cold", &o, &rep, &ns)) return 1;
    free(rep);
  }
  size_t n = s[0].sc->n;
  double tot[8][100], wall[8][100], omp[100];
  for (int r = 0; r < R; r++) {
    for (int dd = 0; dd < D; dd++) { int d = (dd + r) % D;
      if (getenv("POISON")) memset(gt_buffer_data(s[d].buffers[0]), 0xab, s[d].sc->buffer_bytes[0]);
      if (cli_launch(c[d], "warm", s[d].kernel, &s[d].sc->range, s[d].args, s[d].sc->nargs, &o, &rep, &ns)) return 1;
      cJSON *j = cJSON_Parse(rep); free(rep);
      wall[d][r] = ns / 1e6; tot[d][r] = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "phases"), "total_ns")->valuedouble / 1e6;
      if (r == 0) printf("%s: %s\n", argv[3+d], cJSON_GetObjectItem(cJSON_GetObjectItem(j, "decision"), "winner")->valuestring);
      cJSON_Delete(j);
    }
    if (getenv("POISON")) memset(s[0].sc->buffers[0], 0xab, s[0].sc->buffer_bytes[0]);
    double a = now(); if (getenv("THP")) copy(s[0].sc->buffers[0], s[0].sc->buffers[1], n); else if (getenv("INTEGRAL")) integral(gt_buffer_data(s[0].buffers[0]), gt_buffer_data(s[0].buffers[1]), n); else if (!getenv("BENCH")) copy(gt_buffer_data(s[0].buffers[0]), gt_buffer_data(s[0].buffers[1]), n); omp[r] = now() - a;
  }
  double m = med(omp, R);
  printf("omp on the client's mapping %.2f\n", m);
  for (int d = 0; d < D; d++) { double t = med(tot[d], R); printf("%-30s total %.2f (%.3f of omp) wall %.2f\n", argv[3+d], t, t / m, med(wall[d], R)); }
  return 0;
}
const char *const say_prog = "split2";
