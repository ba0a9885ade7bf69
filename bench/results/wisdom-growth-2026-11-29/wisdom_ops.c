/* wisdom_ops N FILE: the wisdom's costs at N entries: a store of a new key (average), a
 * lookup of a missing key (average of 100), and five saves of the whole file (print, write,
 * fsync, rename; the smallest and the third). Entries are refining, three contenders of two
 * pairs each. Build against a build tree's tuner library:
 *   gcc -O2 -I$REPO -I$REPO/tuner -I$REPO/include wisdom_ops.c $BUILD/tuner/libgt_tuner.a -lcjson -lm -o wisdom_ops */
#include "tuner/wisdom.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static gt_wisdom_key key_of(size_t gx){gt_wisdom_key k={.range={.dims=1,.global={gx*64,1,1},.local={64,1,1}},.workers=2};
 snprintf(k.kernel,sizeof k.kernel,"copy_rows");snprintf(k.kernel_hash,sizeof k.kernel_hash,"0123456789abcdef");
 snprintf(k.machine,sizeof k.machine,"fedcba9876543210");return k;}
int main(int argc,char**argv){
 size_t n=atoi(argv[1]); const char*path=argv[2]; char err[512];
 gt_wisdom*w; if(gt_wisdom_open(path,&w,err,sizeof err)){puts(err);return 1;}
 gt_wisdom_entry e={.cost=1.5,.gain=2,.decided=1795000000};
 gt_schedule_parse("group=tiled:4x4,item=linear,assign=stealing",&e.schedule,err,sizeof err);
 snprintf(e.metric,sizeof e.metric,"time");
 e.refine.state=GT_REFINE_REFINING; e.refine.ncontenders=3; e.refine.settled_cost=NAN;
 for(int c=0;c<3;c++){e.refine.contenders[c].schedule=e.schedule;e.refine.contenders[c].n=2;for(int k=0;k<2;k++){e.refine.contenders[c].cost[k]=1.25+k;e.refine.contenders[c].incumbent[k]=1.5;}}
 double t0=now();
 for(size_t i=0;i<n;i++){gt_wisdom_key k=key_of(i+1); if(gt_wisdom_store(w,&k,&e,err,sizeof err)){puts(err);return 1;}}
 double t1=now();
 gt_wisdom_key miss=key_of(n+100); int hits=0; double t2=now();
 for(int r=0;r<100;r++) hits+=gt_wisdom_lookup(w,&miss,NULL);
 double t3=now();
 double ts[5]; for(int r=0;r<5;r++){double a=now(); if(gt_wisdom_save(w,err,sizeof err)){puts(err);return 1;} ts[r]=now()-a;}
 double best=ts[0],med; for(int r=1;r<5;r++) if(ts[r]<best)best=ts[r];
 med=ts[2];
 printf("n=%zu store avg %.1f us, lookup miss %.1f us, save min %.0f us (3rd %.0f us) hits=%d count=%zu\n",n,(t1-t0)/n,(t3-t2)/100,best,med,hits,gt_wisdom_count(w));
 gt_wisdom_close(w); return 0;}
