/* ddpsplit: how many graphs torch.compile runs a DistributedDataParallel module's step as. Dynamo's DDPOptimizer
 * (torch/_dynamo/backends/distributed.py, DDPOptimizer.compile_fn) splits the captured graph at DDP's bucket
 * boundaries, so that each bucket's all-reduce can start as its part of the backward ends: it walks the graph's
 * nodes from the last to the first, adds each node's parameters' storage bytes (untyped_storage().nbytes(): a
 * parameter that is a view of one flat buffer counts the whole buffer) to the open bucket, and opens a new bucket
 * before a node when the open one holds at least its cap: DDP's first-bucket cap (c10d's
 * _DEFAULT_FIRST_BUCKET_BYTES, 1 MiB) for the first, bucket_cap_mb for the rest. Every bucket is a subgraph with
 * its own compiled forward and backward function, each a call the host makes per micro-batch.
 * docs/simulation.md, "Compiled DDP". */
#ifndef DDPSPLIT_H
#define DDPSPLIT_H

/* c10d's _DEFAULT_FIRST_BUCKET_BYTES: DDP's and DDPOptimizer's first bucket */
#define DDPSPLIT_FIRST_CAP (1024.0 * 1024.0)

/* The subgraphs of a graph whose nodes with parameters hold node_bytes[0..n-1] bytes of parameter storage, in
 * the order the walk meets them (from the graph's end), with caps first_cap (the first bucket) and cap (the
 * rest): at least 1. Nodes without parameters only join the open bucket (a trailing one of 0 bytes is folded into
 * its neighbour, as DDPOptimizer does), so they need not be listed. */
int ddpsplit_graphs(const double *node_bytes, int n, double first_cap, double cap);

#endif
