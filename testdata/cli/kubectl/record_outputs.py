#!/usr/bin/env python3
"""Records kubectl 1.37's flags and output formats, for cmd/writepath/cli's
TestKubectlFlagsRecorded and TestKubectlPrintersRecorded.

Run from the repository root:
    python3 testdata/cli/kubectl/record_outputs.py [KUBECTL]
KUBECTL defaults to ~/.cache/realcluster/bin/kubectl (built by ../shared/tools/realcluster).
KUBECONFIG points at a missing file: nothing here talks to a server (kubectl create ...
--dry-run=client builds its object locally). Writes testdata/cli/kubectl/outputs.json:
- flags: for each kubectl verb writepath mirrors, its flags (name, shorthand, default) parsed
  from `kubectl VERB --help`, and the global ones from `kubectl options`;
- objects: kubectl create ... --dry-run=client -o json of a Deployment and a ConfigMap;
- printers: for each object and -o argument list, kubectl's exit status, stdout and stderr;
- diff: kubectl diff's exit status for each file of testdata/cli/kubectl/diff against a
  `writepath serve` (go run ./cmd/writepath serve) holding diff/web.yaml.
"""
import json, os, re, subprocess, sys, tempfile, time

VERBS = [["apply"], ["patch"], ["diff"], ["delete"], ["rollout", "undo"], ["explain"], ["version"], ["create"]]
OBJECTS = {
    "deployment": ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=80"],
    "configmap": ["create", "configmap", "web-config", "--from-literal=a=1", "--from-literal=b=two"],
}
PRINTERS = [
    ["-o", "json"],
    ["-o", "yaml"],
    ["-o", "name"],
    ["-o", "jsonpath={.metadata.name}"],
    ["-ojsonpath={.kind}/{.metadata.name}{\"\\n\"}"],
    ["--output=jsonpath={.spec.template.spec.containers[*].image}"],
    ["-o", "jsonpath={.spec.template.spec.containers[0].ports[0].containerPort}"],
    ["-o", "jsonpath={range .spec.template.spec.containers[*]}{.name}={.image}{\"\\n\"}{end}"],
    ["-o", "jsonpath={.spec.template.spec.containers[?(@.name==\"nginx\")].image}"],
    ["-o", "jsonpath={..image}"],
    ["-o", "jsonpath={.data.b}"],
    ["-o", "jsonpath={.data}"],
    ["-o", "jsonpath={.spec.replicas}"],
    ["-o", "jsonpath={.metadata}"],
    ["-o", "jsonpath={.missing}"],
    ["-o", "jsonpath={}"],
    ["-o", "jsonpath={.}"],
    ["-o", "jsonpath={.metadata.labels.app}"],
    ["-o", "jsonpath-as-json={.metadata.name}"],
    ["-o", "jsonpath", "--template", "{.metadata.name}"],
    ["-o", "go-template={{.metadata.name}} {{.kind}}"],
    ["-o", "go-template={{range $k, $v := .data}}{{$k}}={{$v}};{{end}}"],
    ["-o", "go-template={{.missing}}"],
    ["--template", "{{.metadata.name}}"],
    ["-o", "jsonpath={.metadata.name"],
    ["-o", "jsonpath={.items[a]}"],
    ["-o", "go-template={{.metadata.name"],
    ["-o", "jsonpath"],
    ["-o", "bogus"],
    ["-o", "wide"],
    ["-o", "jsonpath={.missing}", "--allow-missing-template-keys=false"],
    ["-o", "jsonpath={.spec.template.spec.containers[3]}"],
]

def flags_of(help_text):
    out = []
    for m in re.finditer(r"^    (?:-(\w), )?--([\w-]+)=(.*):$", help_text, re.M):
        out.append({"shorthand": m.group(1) or "", "name": m.group(2), "default": m.group(3)})
    return out

DIFF_FILES = ["web.yaml", "web-scaled.yaml", "broken.yaml"]

def record_diff(kubectl):
    d = "testdata/cli/kubectl/diff/"
    kc = os.path.join(tempfile.mkdtemp(), "kubeconfig")
    subprocess.run(["go", "build", "-o", os.path.dirname(kc) + "/writepath", "./cmd/writepath"], check=True)
    srv = subprocess.Popen([os.path.dirname(kc) + "/writepath", "serve", "-f", d + "web.yaml", "--kubeconfig", kc], stdout=subprocess.PIPE, text=True)
    try:
        while "kubeconfig:" not in srv.stdout.readline():
            time.sleep(0.1)
        env = dict(os.environ, KUBECONFIG=kc)
        cases = []
        for f in DIFF_FILES:
            p = subprocess.run([kubectl, "diff", "-f", d + f], capture_output=True, text=True, env=env, timeout=60)
            cases.append({"file": d + f, "exit": p.returncode})
        return cases
    finally:
        srv.terminate()
        srv.wait()

def main():
    kubectl = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/realcluster/bin/kubectl")
    env = dict(os.environ, KUBECONFIG="/nonexistent/kubeconfig")
    run = lambda args: subprocess.run([kubectl] + args, capture_output=True, text=True, env=env, timeout=60)
    version = json.loads(run(["version", "--client", "-o", "json"]).stdout)["clientVersion"]["gitVersion"]
    out = {"kubectl": version, "flags": {}, "objects": {}, "printers": []}
    for verb in VERBS:
        out["flags"][" ".join(verb)] = flags_of(run(verb + ["--help"]).stdout)
    out["flags"]["(global)"] = flags_of(run(["options"]).stdout)
    for name, args in OBJECTS.items():
        p = run(args + ["--dry-run=client", "-o", "json"])
        assert p.returncode == 0, (name, p.stderr)
        out["objects"][name] = json.loads(p.stdout)
        for o in PRINTERS:
            p = run(args + ["--dry-run=client"] + o)
            assert "memcache.go" not in p.stderr, (name, o, p.stderr)
            out["printers"].append({"object": name, "args": o, "exit": p.returncode, "stdout": p.stdout, "stderr": p.stderr})
    out["diff"] = record_diff(kubectl)
    with open("testdata/cli/kubectl/outputs.json", "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")

main()
