#!/usr/bin/env python3
"""calibrate/torch_attention.py: the reference for gpusim's fused attention rows (gpu.attention.fused).

Times torch.nn.functional.scaled_dot_product_attention, bf16, one backend at a time (flash, cudnn), at the shapes of
the FlashAttention benchmarks: 16K tokens a batch (batch = 16384 / seq), model width 2048 (heads = 2048 / head_dim),
head_dim 64 and 128, causal and not, seq 512..32K; plus GQA (8 KV heads). FLOPs as docs/hardware-model.md counts
them: 4*b*h*s^2*d forward, halved causal, backward 2.5x. Backward time = (fwd+bwd) - fwd. CUDA events, 3 warm-up and
10 timed iterations, median. Output CSV on stdout:
backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops
"""
import sys, torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

def med(f, n=10, w=3):
    for _ in range(w): f()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]

def main():
    seqs = [int(x) for x in (sys.argv[1].split(",") if len(sys.argv) > 1 else "512,1024,2048,4096,8192,16384,32768".split(","))]
    print("backend,head_dim,causal,gqa,seq,batch,heads,fwd_ms,bwd_ms,fwd_tflops,bwd_tflops", flush=True)
    for be_name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
        for d in (64, 128):
            for causal in (False, True):
                for gqa in (False, True):
                    for s in seqs:
                        b, h = max(1, 16384 // s), 2048 // d
                        hk = 8 if gqa else h
                        q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                        k = torch.randn(b, hk, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                        v = torch.randn(b, hk, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                        g = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
                        try:
                            with sdpa_kernel([be]):
                                fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
                                tf = med(fwd)
                                def fb():
                                    o = fwd(); o.backward(g)
                                tfb = med(fb)
                        except Exception as e:
                            print(f"# {be_name} d{d} causal={causal} gqa={gqa} s{s}: {type(e).__name__}: {str(e)[:120]}", flush=True)
                            continue
                        fl = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
                        tb = tfb - tf
                        print(f"{be_name},{d},{int(causal)},{int(gqa)},{s},{b},{h},{tf:.4f},{tb:.4f},"
                              f"{fl / tf / 1e9:.1f},{2.5 * fl / tb / 1e9 if tb > 0 else 0:.1f}", flush=True)
                        del q, k, v, g
if __name__ == "__main__":
    main()
