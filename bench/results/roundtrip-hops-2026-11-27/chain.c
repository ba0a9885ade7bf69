/* Round trips of 164/32-byte frames (gt_run's sizes) over Unix stream sockets, medians of 10 blocks
 * of 1000: two processes (ping-pong), and three in a chain A-B-C-B-A (client, daemon,
 * executor; what gt_run crosses). gcc -O2 chain.c -o chain */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static void relay(int up, int down){ /* read from up, forward down, read answer from down, send up */
  for(;;){ if(read(up,buf,164)<=0)_exit(0); if(down>=0){write(down,buf,164); read(down,buf,32);} write(up,buf,32);} }
int main(int argc,char**argv){
  int reps=1000, blocks=10;
  int ab[2],bc[2],ab2[2];
  socketpair(AF_UNIX,SOCK_STREAM,0,ab); socketpair(AF_UNIX,SOCK_STREAM,0,bc); socketpair(AF_UNIX,SOCK_STREAM,0,ab2);
  if(!(kids[nkids++]=fork())){ close(ab[0]); close(bc[1]); relay(ab[1],bc[0]); }
  if(!(kids[nkids++]=fork())){ close(bc[0]); relay(bc[1],-1); }
  if(!(kids[nkids++]=fork())){ relay(ab2[1],-1); }
  unsigned long long t2[10],t3[10], v[1000];
  for(int b=0;b<blocks;b++){
    for(int m=0;m<2;m++){ int fd = m? ab[0]: ab2[0];
      for(int i=0;i<reps;i++){unsigned long long s=ns(); write(fd,buf,164); read(fd,buf,32); v[i]=ns()-s;}
      qsort(v,reps,8,cmp); (m?t3:t2)[b]=v[reps/2]; }
  }
  qsort(t2,blocks,8,cmp); qsort(t3,blocks,8,cmp);
  printf("two processes %.1f us, three in a chain %.1f us, ratio %.2f\n", t2[5]/1e3, t3[5]/1e3, (double)t3[5]/t2[5]);
  end_kids();
  return 0;
}
