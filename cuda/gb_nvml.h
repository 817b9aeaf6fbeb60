/* gb_nvml: the few NVML queries calibrate uses (clocks, power, throttle reasons, NVLinks, driver version), loaded
 * with dlopen from the driver's libnvidia-ml.so.1 at run time, so building needs no nvml.h (the toolkit may not
 * ship it) and a machine without NVML still calibrates, with those fields unknown. GPUs are named by PCI bus id,
 * which CUDA and NVML agree on whatever CUDA_VISIBLE_DEVICES says. */
#ifndef GB_NVML_H
#define GB_NVML_H

#include <stddef.h>
#include "cuda/gpubench.h"

bool gb_nvml_open(void);  /* true when NVML is loaded and initialised (tried once) */
int gb_nvml_driver(char *buf, size_t len);
/* fills sm/mem max clocks, power limit, active NVLinks, whether a link ends at an NVSwitch; 0 or -1 */
int gb_nvml_gpu(const char *pci_bus_id, struct gb_gpu *g);
int gb_nvml_clocks(const char *pci_bus_id, struct gb_clocks *c);

#endif
