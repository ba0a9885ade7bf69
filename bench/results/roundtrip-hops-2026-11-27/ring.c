/* The same three round trips side by side, interleaved blocks: ping-pong, the chain A-B-C-B-A,
 * and a ring A-B-C-A (the executor answering the client itself). gcc -O2 ring.c -o ring */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
static unsigned long long ns(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
static int cmp(const void*a,const void*b){unsigned long long x=*(unsigned long long*)a,y=*(unsigned long long*)b;return x<y?-1:x>y;}
char buf[256];
static pid_t kids[8]; static int nkids;
/* Every process holds every socket, so none sees end of file: the parent ends them. */
static void end_kids(void){ for(int i=0;i<nkids;i++) if(kids[i]>0){kill(kids[i],SIGKILL); waitpid(kids[i],NULL,0);} }
int main(void){
  int ab[2],bc[2],ca[2],pp[2],x1[2],x2[2];
  socketpair(AF_UNIX,SOCK_STREAM,0,ab); socketpair(AF_UNIX,SOCK_STREAM,0,bc); socketpair(AF_UNIX,SOCK_STREAM,0,ca); socketpair(AF_UNIX,SOCK_STREAM,0,pp);
  socketpair(AF_UNIX,SOCK_STREAM,0,x1); socketpair(AF_UNIX,SOCK_STREAM,0,x2);
  if(!(kids[nkids++]=fork())){ for(;;){ if(read(ab[1],buf,164)<=0)_exit(0); write(bc[0],buf,164);} }      /* B: daemon */
  if(!(kids[nkids++]=fork())){ for(;;){ if(read(bc[1],buf,164)<=0)_exit(0); write(ca[0],buf,32);} }       /* C: executor answers A */
  if(!(kids[nkids++]=fork())){ for(;;){ if(read(pp[1],buf,164)<=0)_exit(0); write(pp[1],buf,32);} }       /* echo */
  if(!(kids[nkids++]=fork())){ for(;;){ if(read(x1[1],buf,164)<=0)_exit(0); write(x2[0],buf,164); read(x2[0],buf,32); write(x1[1],buf,32);} } /* chain B */
  if(!(kids[nkids++]=fork())){ for(;;){ if(read(x2[1],buf,164)<=0)_exit(0); write(x2[1],buf,32);} } /* chain C */
  enum{R=1000,B=10}; unsigned long long t[3][B], v[R];
  for(int b=0;b<B;b++) for(int m=0;m<3;m++){
     for(int i=0;i<R;i++){unsigned long long s=ns();
        if(m==0){write(pp[0],buf,164);read(pp[0],buf,32);}
        else if(m==1){write(x1[0],buf,164);read(x1[0],buf,32);}
        else {write(ab[0],buf,164);read(ca[1],buf,32);}
        v[i]=ns()-s;}
     qsort(v,R,8,cmp); t[m][b]=v[R/2]; }
  for(int m=0;m<3;m++) qsort(t[m],B,8,cmp);
  printf("ping-pong %.1f us, chain A-B-C-B-A %.1f us, ring A-B-C-A %.1f us\n", t[0][5]/1e3,t[1][5]/1e3,t[2][5]/1e3);
  end_kids();
}
