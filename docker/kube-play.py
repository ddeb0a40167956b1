#!/usr/bin/python3
"""kube-play.py — docker/k8s as `podman kube play` runs it on one host (the container smoke test).

    /usr/bin/python3 docker/kube-play.py --image localhost/gjkd:TAG \
        --zmq-port P --http-port Q > kube.yaml
    podman kube play kube.yaml        ...        podman kube down kube.yaml

Writes one multi-document YAML: the ConfigMaps of docker/k8s/configmap.yaml and the Deployment
of docker/k8s/deployment.yaml, as they are, with only what a single host needs changed:
  - the image (the one just built), never pulled;
  - no init container (see below);
  - one replica (podman 4.3 runs one pod per Deployment);
  - hostPort and hostIP 127.0.0.1 on the two container ports, so that the pod is published on
    the host's loopback only, on ports the caller picked free.
The Service, NetworkPolicy, Job and HPA are left out: podman has no such kinds.
The init container (state-owner) is left out: podman 4.3 removes a finished init container
while it may still count it as running, and then fails the whole play ("failed to remove once
init container ... as it is running"; its annotation for the "always" type is not read from the
YAML in 4.3). What it does is done by podman for the pod: a new named volume is filled at its first mount
from the image's /var/lib/gjkd, owner 10001 and mode 0750, which gjkd accepts.
Needs python3-yaml.
"""
import argparse
import os
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", required=True)
    ap.add_argument("--zmq-port", type=int, required=True)
    ap.add_argument("--http-port", type=int, required=True)
    a = ap.parse_args()
    with open(os.path.join(here, "k8s", "configmap.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    with open(os.path.join(here, "k8s", "deployment.yaml")) as f:
        deploy = yaml.safe_load(f)
    deploy["spec"]["replicas"] = 1
    spec = deploy["spec"]["template"]["spec"]
    host_ports = {"zmq": a.zmq_port, "http": a.http_port}
    spec.pop("initContainers", None)
    for c in spec["containers"]:
        c["image"] = a.image
        c["imagePullPolicy"] = "Never"
        for port in c.get("ports", []):
            port["hostPort"] = host_ports[port["name"]]
            port["hostIP"] = "127.0.0.1"
    yaml.safe_dump_all(docs + [deploy], sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
