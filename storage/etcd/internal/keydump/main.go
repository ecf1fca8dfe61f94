// Command keydump prints the keys under a prefix of a loopback etcd, one per line, sorted: how
// testdata/kube-apiserver-keys.txt was recorded from a kube-apiserver 1.37.2 (see its header).
//
//	go run ./internal/keydump --etcd http://127.0.0.1:23508 --prefix /registry/
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func main() {
	endpoint := flag.String("etcd", "http://127.0.0.1:2379", "etcd client URL (loopback)")
	prefix := flag.String("prefix", "/registry/", "key prefix")
	flag.Parse()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{*endpoint}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "keydump:", err)
		os.Exit(1)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, *prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		fmt.Fprintln(os.Stderr, "keydump:", err)
		os.Exit(1)
	}
	for _, kv := range resp.Kvs {
		fmt.Println(string(kv.Key))
	}
}
