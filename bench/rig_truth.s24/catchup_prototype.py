#!/usr/bin/env python3
# Session 24 prototype (not calibrate): what each pause of a flat-out trace cost against
# what the writer saw. Per pause: the line offset (bytes - R t) over the 16 clean writes
# before it and over 16 clean writes after its catch-up; lost = the offset drop / R;
# caught = excess - lost. Usage: catchup_prototype.py TRACE.csv ... (streamdisk native traces)
import csv, sys, statistics as st
def load(path):
    rows=[r for r in csv.reader(l for l in open(path) if not l.startswith('#'))][1:]
    return [(float(r[0]),float(r[1]),int(r[5])) for r in rows if r[2]=='write']
def analyse(path, W=16):
    w=load(path)
    d=[e-s for s,e,n in w]
    # baseline: rolling median of seconds per byte
    spb=[x/n for x,(s,e,n) in zip(d,w)]
    out=[]
    Y=[];c=0
    for s,e,n in w: c+=n; Y.append(c)
    i=W
    while i < len(w)-3*W:
        base=st.median(spb[i-W:i])
        if d[i] > base*w[i][2]*1.5 + 0.1:   # a pause: write at least 100 ms over
            a=i; b=i
            while b+1<len(w) and d[b+1] > base*w[b+1][2]*1.5+0.05: b+=1
            excess=sum(d[k]-base*w[k][2] for k in range(a,b+1))
            bw=range(a-W,a)
            if any(w[k+1][0]-w[k][1] > 0.01 for k in range(a-W,a-1)): i=b+1; continue
            R=sum(w[k][2] for k in bw)/sum(d[k] for k in bw)
            ob=st.median(Y[k]-R*w[k][1] for k in bw)
            # skip the catch-up: bytes R*excess plus 2 writes
            j=b+1; skipped=0
            while j<len(w) and skipped < R*excess: skipped+=w[j][2]; j+=1
            j+=2
            aw=range(j,j+W)
            if j+W>=len(w): break
            if any(d[k] > base*w[k][2]*1.5+0.05 for k in aw) or any(w[k+1][0]-w[k][1] > 0.01 for k in range(a-1,j+W-1)):
                i=b+1; continue
            oa=st.median(Y[k]-R*w[k][1] for k in aw)
            lost=(ob-oa)/R
            out.append((w[a][0]-w[0][0], excess, lost, excess-lost, R/1e6))
            i=j
        else: i+=1
    return out
for p in sys.argv[1:]:
    res=analyse(p)
    print(p, len(res), 'pauses')
    for r in res: print('  at %.1f excess %.3f lost %.3f caught %.3f R %.1f' % r)
    if res: print('  median caught %.3f' % st.median(r[3] for r in res))
