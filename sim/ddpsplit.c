/* ddpsplit: DDPOptimizer's graph split (ddpsplit.h). */
#include "sim/ddpsplit.h"

int ddpsplit_graphs(const double *node_bytes, int n, double first_cap, double cap)
{
	int buckets = 1;
	double open = 0;
	for (int i = 0; i < n; i++) {
		if (open >= cap || (buckets == 1 && open >= first_cap)) {
			buckets++;
			open = 0;
		}
		open += node_bytes[i];
	}
	return buckets;
}
