#!/usr/bin/python3
"""Writes the SimGrid platforms of configs/platforms/ (README.md there says
where every figure comes from).

    tools/smpi-platform.py fattree HOSTS OUT.xml
        a two-level fat tree of InfiniBand HDR figures, 32 hosts per leaf
        switch, full bisection
    tools/smpi-platform.py torus HOSTS OUT.xml
        a 3D torus of Blue Gene/L figures, shaped so that the box grid
        MPI_Dims_create(HOSTS, 3) gives lies on it neighbour to neighbour
    tools/smpi-platform.py local HOCKNEY_JSON HOSTS OUT.xml
        a crossbar whose one-way time is this machine's measured alpha + beta m
        (a hockney.json of shiftbox pingpong): each host link carries alpha / 2

Every platform is single-port (a host's traffic shares one link's bandwidth
each way) and full duplex, the assumptions of the Hockney model and of seed
000; the SMPI options that make the simulation follow the link figures
exactly (network/model CM02, no cross traffic) are passed by
tools/smpi-run.sh.  Hosts are node-0 .. node-(HOSTS-1); smpirun puts rank r
on node-r.
"""
import json
import sys

HEADER = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- {what}
     Written by tools/smpi-platform.py {args}; configs/platforms/README.md
     gives the source of every figure. -->
<platform version="4.1">
{config}  <zone id="world" routing="Full">
{cluster}
  </zone>
</platform>
"""

# InfiniBand HDR: 200 Gb/s per port (25 GB/s each way).  The links carry
# 10 ns each (cable and serdes); the switches' 130 ns port to port (3 on a
# route between leaf switches) and the MPI software make 0.5 us per message
# at each end (smpi/os, ois, or), the same for every pair of hosts, as seed
# 000 sec. 4.4 found on JURECA (no measurable effect of distance).
FATTREE = dict(bw="25GBps", lat="10ns", overhead=0.5e-6, per_leaf=32)
# Blue Gene/L: 1.4 Gb/s (175 MB/s) per link each way, 100 ns per hop, one
# port's worth of injection per node; 1.5 us of MPI software at each end.
TORUS = dict(bw="175MBps", lat="100ns", overhead=1.5e-6)


def dims_create(n):
    """MPI_Dims_create(n, 3): balanced factors, largest first."""
    primes, m, p = [], n, 2
    while m > 1:
        while m % p == 0:
            primes.append(p)
            m //= p
        p += 1
    dims = [1, 1, 1]
    for f in sorted(primes, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims, reverse=True)


def overheads(seconds):
    """SMPI's per-message software time at the sender (os, ois) and the receiver (or)."""
    value = f"0:{seconds:.9g}:0"
    props = "".join(f'    <prop id="smpi/{o}" value="{value}"/>\n' for o in ("os", "ois", "or"))
    return f"  <config>\n{props}  </config>\n"


def fattree(hosts):
    leaves = -(-hosts // FATTREE["per_leaf"])
    down, up = FATTREE["per_leaf"], FATTREE["per_leaf"]
    what = (f"Fat tree of {hosts} hosts: {leaves} leaf switches of {down} hosts, each with "
            f"{up} up-links to {up} core switches (full bisection); links {FATTREE['bw']}, "
            f"{FATTREE['lat']} each; {FATTREE['overhead'] * 1e6:g} us of MPI software per "
            "message at each end.")
    cluster = (f'    <cluster id="fattree" prefix="node-" radical="0-{leaves * down - 1}" suffix="" '
               f'speed="1Gf" bw="{FATTREE["bw"]}" lat="{FATTREE["lat"]}" '
               f'sharing_policy="SPLITDUPLEX" topology="FAT_TREE" '
               f'topo_parameters="2;{down},{leaves};1,{up};1,1"/>')
    return what, overheads(FATTREE["overhead"]), cluster


def torus(hosts):
    d = dims_create(hosts)
    shape = [d[2], d[1], d[0]]  # host ids run x fastest, box ranks z fastest
    what = (f"3D torus {shape[0]}x{shape[1]}x{shape[2]} of {hosts} hosts, the box grid "
            f"{d[0]}x{d[1]}x{d[2]} that MPI_Dims_create gives laid on it neighbour to "
            f"neighbour; links {TORUS['bw']} each way, {TORUS['lat']} per hop, dimension-order "
            f"routing, one link's bandwidth of injection per host; "
            f"{TORUS['overhead'] * 1e6:g} us of MPI software per message at each end.")
    cluster = (f'    <cluster id="torus" prefix="node-" radical="0-{hosts - 1}" suffix="" '
               f'speed="1Gf" bw="{TORUS["bw"]}" lat="{TORUS["lat"]}" '
               f'limiter_link="{TORUS["bw"]}" sharing_policy="SPLITDUPLEX" topology="TORUS" '
               f'topo_parameters="{shape[0]},{shape[1]},{shape[2]}"/>')
    return what, overheads(TORUS["overhead"]), cluster


def local(path, hosts):
    h = json.load(open(path))
    h = h.get("hockney", h)
    seg = h["segments"][-1]
    alpha = h["alpha_s"]
    beta = seg["beta_s_per_byte"]
    if not (alpha > 0 and beta > 0):
        sys.exit(f"smpi-platform: {path}: alpha and beta must be positive")
    what = (f"Crossbar of {hosts} hosts with this machine's Hockney figures from {path}: "
            f"alpha {alpha * 1e6:.3f} us, beta {beta * 1e9:.4f} ns/byte "
            f"({1e-9 / beta:.2f} GB/s); each host link carries alpha / 2.")
    cluster = (f'    <cluster id="local" prefix="node-" radical="0-{hosts - 1}" suffix="" '
               f'speed="1Gf" bw="{1.0 / beta:.6g}Bps" lat="{alpha / 2:.6g}s" '
               f'sharing_policy="SPLITDUPLEX" bb_bw="1PBps" bb_lat="0s"/>')
    return what, "", cluster


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    try:
        kind = argv[1]
        if kind == "local":
            source, hosts, out = argv[2], int(argv[3]), argv[4]
            what, config, cluster = local(source, hosts)
        elif kind in ("fattree", "torus"):
            hosts, out = int(argv[2]), argv[3]
            what, config, cluster = (fattree if kind == "fattree" else torus)(hosts)
        else:
            raise ValueError(kind)
        if hosts < 1:
            raise ValueError(hosts)
    except (IndexError, ValueError):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    text = HEADER.format(what=what, args=" ".join(argv[1:-1]), config=config, cluster=cluster)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)
