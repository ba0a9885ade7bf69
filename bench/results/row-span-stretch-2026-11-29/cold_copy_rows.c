#include <gridtune/gridtune.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc,char**argv){
  int n=16384; gt_client*c; if(gt_connect(NULL,&c)){puts("connect");return 1;}
  gt_kernel*k; if(gt_kernel_load(c,argv[1],"copy_rows",&k)){printf("load %s\n",gt_last_error(c));return 1;}
  gt_buffer*a,*b; size_t bytes=(size_t)n*n*4;
  if(gt_buffer_create(c,bytes,&a)||gt_buffer_create(c,bytes,&b)){printf("buf %s\n",gt_last_error(c));return 1;}
  memset(gt_buffer_data(b),1,bytes);
  gt_arg args[]={gt_arg_buffer(a),gt_arg_buffer(b),gt_arg_i32(n)};
  gt_range r={.dims=2,.global={n,n},.local={16,16}};
  for(int i=0;i<atoi(argv[2]);i++){
    gt_event ev; if(gt_run(c,k,&r,args,3,NULL,&ev)){printf("run %s\n",gt_last_error(c));return 1;}
    char*js=NULL; gt_report(c,ev,&js); char fn[64]; snprintf(fn,sizeof fn,"rep%d.json",i); FILE*f=fopen(fn,"w"); fputs(js,f); fclose(f); free(js); gt_event_release(c,ev);
  }
  return 0;}
