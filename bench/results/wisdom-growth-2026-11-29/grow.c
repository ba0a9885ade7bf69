/* grow N MODULE BLOCK [START]: launches MODULE's fill over N distinct 1-D ranges (START + i
 * workgroups of 64, tuning auto) through the daemon at $GRIDTUNE_SOCKET, timing each gt_run;
 * prints the median and 90th percentile per BLOCK launches and the status's wisdom figures. */
#include <gridtune/gridtune.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now_us(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){
  int n=atoi(argv[1]); const char*module=argv[2]; int block=atoi(argv[3]); int start=argc>4?atoi(argv[4]):8;
  gt_client*c; if(gt_connect(NULL,&c)){fprintf(stderr,"connect failed\n");return 1;}
  gt_kernel*k; if(gt_kernel_load(c,module,"fill",&k)){fprintf(stderr,"load: %s\n",gt_last_error(c));return 1;}
  gt_buffer*b; if(gt_buffer_create(c,(size_t)(n+start)*64*4,&b)){fprintf(stderr,"buf: %s\n",gt_last_error(c));return 1;}
  gt_arg args[]={gt_arg_buffer(b),gt_arg_i32(1)};
  double*t=malloc(sizeof(double)*block);
  for(int i=0;i<n;i++){
    gt_range r={.dims=1,.global={(size_t)(i+start)*64},.local={64}};
    double a=now_us(); if(gt_run(c,k,&r,args,2,NULL,NULL)){fprintf(stderr,"run %d: %s\n",i,gt_last_error(c));return 1;}
    t[i%block]=now_us()-a;
    if(i%block==block-1){qsort(t,block,sizeof*t,cmp);
      char*js=NULL; gt_status(c,&js); char*e=js?strstr(js,"\"entries\":"):NULL;
      printf("launches %5d-%5d: median %7.0f us, p90 %7.0f us, %.40s\n",i-block+1,i,t[block/2],t[block*9/10],e?e:"?"); fflush(stdout); free(js);}
  }
  return 0;}
