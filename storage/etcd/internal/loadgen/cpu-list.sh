#!/bin/bash
# Server and etcd CPU per list (BENCHMARKS.md "Lists from the watch cache"): 200 lists of
# namespace NS by curl, 4 at a time, CPU read from /proc/PID/stat of the server and of
# realcluster's etcd (/tmp/rc-etcd/etcd.pid). usage: cpu-list.sh PORT TOKEN NS SERVER_PID N
port=$1 tok=$2 ns=$3 pid=$4 n=$5
etcdpid=$(cat /tmp/rc-etcd/etcd.pid)
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
tck=$(getconf CLK_TCK)
a=$(cpu $pid); e=$(cpu $etcdpid); t0=$(date +%s.%N)
seq $n | xargs -P 4 -I{} curl -sk -o /dev/null -H "Authorization: Bearer $tok" https://127.0.0.1:$port/api/v1/namespaces/$ns/configmaps
t1=$(date +%s.%N); b=$(cpu $pid); f=$(cpu $etcdpid)
echo "server cpu/list $(echo "scale=2; ($b-$a)*1000/$tck/$n" | bc) ms, etcd cpu/list $(echo "scale=2; ($f-$e)*1000/$tck/$n" | bc) ms, wall $(echo "$t1-$t0" | bc) s for $n"
