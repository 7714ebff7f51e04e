#!/usr/bin/env python3
# Per pause in EVENTS (the rig's events.log), the longest write of a writer.py LOG that
# overlaps it: its length, start from the pause's start, end from its end.
# Usage: longest.py EVENTS LOG   (session 27, bench/rig_truth.md)
import sys
ev=[l.split() for l in open(sys.argv[1])]
P=[];cur=None
for e in ev:
    if e[1]=='pause': cur=float(e[0])
    elif e[1]=='resume' and cur is not None: P.append((cur,float(e[0]))); cur=None
W=[[float(x) for x in l.split()] for l in open(sys.argv[2])]
t0,t1=W[0][0],W[-1][1]
d=sorted(w[1]-w[0] for w in W); print("writes",len(W),"median %.3f"%d[len(d)//2])
for ps,pe in P:
    if not t0<=ps<=t1-1: continue
    held=[w for w in W if w[1]>ps and w[0]<pe+0.3]
    longest=max(held,key=lambda w:w[1]-w[0]) if held else None
    if longest:
        print("pause %.2f s at %6.1f: longest write %.3f s, start %+.3f from pause start, end %+.3f from pause end; writes overlapping: %d; lvl %s"%(pe-ps,ps-t0,longest[1]-longest[0],longest[0]-ps,longest[1]-pe,len(held),[w[2:] for w in W if w[0]<=ps][-1:]))
