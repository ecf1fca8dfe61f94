#!/usr/bin/env python3
"""Records kubectl 1.37's answers to command lines it refuses before talking to a server
(flag misuse, bad flag values), for cmd/writepath/cli's TestKubectlMisuseRecorded.

Run from the repository root:
    python3 testdata/cli/kubectl/record.py [KUBECTL]
KUBECTL defaults to ~/.cache/realcluster/bin/kubectl (built by ../shared/tools/realcluster).
KUBECONFIG points at a missing file: no answer here may come from a server. Writes
testdata/cli/kubectl/recorded.json: each case's argv, kubectl's exit status and stderr.
"""
import json, os, subprocess, sys

F = "testdata/examples/deployment.yaml"
CASES = [
    ("unknown-flag", ["delete", "--bogus"]),
    ("unknown-shorthand", ["apply", "-x"]),
    ("flag-needs-argument", ["diff", "-f"]),
    ("flag-needs-argument-long", ["delete", "--filename"]),
    ("bad-int", ["delete", "-f", F, "deploy/web", "--grace-period=soon"]),
    ("bad-bool", ["apply", "--server-side=maybe", "-f", F]),
    ("force-conflicts-client-side", ["apply", "-f", F, "--force-conflicts"]),
    ("bad-cascade", ["delete", "-f", F, "deploy/web", "--cascade=sideways"]),
    ("bad-patch-type", ["patch", "deploy/web", "--type", "xml", "-p", "{}"]),
    ("bad-dry-run", ["apply", "--server-side", "-f", F, "--dry-run=maybe"]),
    ("patch-without-patch", ["patch", "deploy/web"]),
    ("unknown-command", ["frobnicate"]),
]

def main():
    kubectl = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/realcluster/bin/kubectl")
    env = dict(os.environ, KUBECONFIG="/nonexistent/kubeconfig")
    version = subprocess.run([kubectl, "version", "--client", "-o", "json"], capture_output=True, text=True, env=env).stdout
    out = {"kubectl": json.loads(version)["clientVersion"]["gitVersion"], "cases": []}
    for name, argv in CASES:
        p = subprocess.run([kubectl] + argv, capture_output=True, text=True, env=env, timeout=60)
        # klog lines (E1202 ... memcache.go) would mean kubectl tried a server: not a misuse case.
        assert "memcache.go" not in p.stderr, (name, p.stderr)
        out["cases"].append({"name": name, "args": argv, "exit": p.returncode, "stderr": p.stderr})
    with open("testdata/cli/kubectl/recorded.json", "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")

main()
