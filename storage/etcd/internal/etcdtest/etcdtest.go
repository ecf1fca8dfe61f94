// Package etcdtest starts a real etcd server (/usr/bin/etcd, Debian's etcd-server) on loopback
// in a temporary directory for the tests of the etcd store and of the serve binary.
package etcdtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the etcd server the tests run.
const Binary = "/usr/bin/etcd"

// Server is one running etcd.
type Server struct {
	// URL is the client URL, http://127.0.0.1:PORT.
	URL string
	// Dir is the data directory; it survives Kill, so that Restart recovers it.
	Dir string

	t          testing.TB
	clientPort int
	peerPort   int
	cmd        *exec.Cmd
	log        *bytes.Buffer
}

var portMu sync.Mutex

// freePorts returns two ports of 24000–24999 that nothing listens on now.
func freePorts(t testing.TB) (int, int) {
	portMu.Lock()
	defer portMu.Unlock()
	var found []int
	start := 24000 + (os.Getpid()*7)%900
	for p := start; len(found) < 2 && p < start+100; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		_ = l.Close()
		found = append(found, p)
	}
	if len(found) < 2 {
		t.Fatalf("etcdtest: no free ports near %d", start)
	}
	return found[0], found[1]
}

// Start runs etcd in a fresh temporary directory, waits until it answers, and stops it when the
// test ends. It skips the test when /usr/bin/etcd is absent (apt-get install etcd-server; `make
// test` installs it).
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Skipf("etcd is not installed (%s missing): apt-get install etcd-server to run the etcd tests", Binary)
	}
	s := &Server{t: t, Dir: dataDir(t)}
	s.clientPort, s.peerPort = freePorts(t)
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", s.clientPort)
	s.run()
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) run() {
	s.t.Helper()
	peer := fmt.Sprintf("http://127.0.0.1:%d", s.peerPort)
	s.log = &bytes.Buffer{}
	s.cmd = exec.Command(Binary,
		"--name", "writepath-test",
		"--data-dir", filepath.Join(s.Dir, "data"),
		"--listen-client-urls", s.URL, "--advertise-client-urls", s.URL,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "writepath-test="+peer,
		"--log-level", "error", "--logger", "zap")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("etcdtest: starting etcd: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.clientPort), time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	s.t.Fatalf("etcdtest: etcd did not listen on %s within 30s: %s", s.URL, s.log.String())
}

// dataDir is a fresh directory in memory (/dev/shm) where there is one: etcd syncs every commit
// to disk, which on a slow disk makes a test of 2,000 writes take half a minute. A process kill,
// which the durability tests make, loses nothing that etcd wrote to tmpfs either.
func dataDir(t testing.TB) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "writepath-etcdtest-"); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// Kill ends etcd with SIGKILL, keeping its data directory.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts etcd again on the same ports and data directory.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.run()
}

// Stop ends etcd (idempotent).
func (s *Server) Stop() { s.Kill() }
