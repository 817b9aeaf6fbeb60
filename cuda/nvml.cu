/* nvml: NVML through dlopen (see gb_nvml.h). The declarations below follow nvml.h's stable C ABI: opaque device
 * handles, int return codes with 0 = NVML_SUCCESS, and the enum values named beside each use. */
#include <dlfcn.h>
#include <string.h>
#include "cuda/gb_nvml.h"

typedef struct gb_nvml_device *nvml_dev_t;
typedef int nvml_ret_t;

static struct {
	int state;  /* 0 untried, 1 loaded, -1 unavailable */
	nvml_ret_t (*init)(void);
	nvml_ret_t (*driver)(char *, unsigned);
	nvml_ret_t (*by_bus)(const char *, nvml_dev_t *);
	nvml_ret_t (*clock)(nvml_dev_t, int, unsigned *);
	nvml_ret_t (*max_clock)(nvml_dev_t, int, unsigned *);
	nvml_ret_t (*power_limit)(nvml_dev_t, unsigned *);
	nvml_ret_t (*power)(nvml_dev_t, unsigned *);
	nvml_ret_t (*temp)(nvml_dev_t, int, unsigned *);
	nvml_ret_t (*reasons)(nvml_dev_t, unsigned long long *);
	nvml_ret_t (*link_state)(nvml_dev_t, unsigned, int *);
	nvml_ret_t (*link_remote_type)(nvml_dev_t, unsigned, int *);
} nv;

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0, NVML_NVLINK_MAX_LINKS = 18,
       NVML_ENABLE = 1, NVML_NVLINK_DEVICE_TYPE_SWITCH = 2 };

bool gb_nvml_open(void)
{
	if (nv.state)
		return nv.state > 0;
	nv.state = -1;
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
#define SYM(field, name) (*(void **)&nv.field = dlsym(h, name))
	SYM(init, "nvmlInit_v2");
	SYM(driver, "nvmlSystemGetDriverVersion");
	SYM(by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
	SYM(power_limit, "nvmlDeviceGetPowerManagementLimit");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nv.reasons)
		SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
	SYM(link_state, "nvmlDeviceGetNvLinkState");
	SYM(link_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
#undef SYM
	if (!nv.init || !nv.by_bus || nv.init() != 0)
		return false;
	nv.state = 1;
	return true;
}

int gb_nvml_driver(char *buf, size_t len)
{
	if (!gb_nvml_open() || !nv.driver || nv.driver(buf, (unsigned)len) != 0)
		return -1;
	return 0;
}

static nvml_dev_t device(const char *bus)
{
	nvml_dev_t d = NULL;
	if (!gb_nvml_open() || nv.by_bus(bus, &d) != 0)
		return NULL;
	return d;
}

int gb_nvml_gpu(const char *pci_bus_id, struct gb_gpu *g)
{
	nvml_dev_t d = device(pci_bus_id);
	unsigned v;
	if (!d)
		return -1;
	if (nv.max_clock && nv.max_clock(d, NVML_CLOCK_SM, &v) == 0)
		g->sm_clock_max_mhz = (int)v;
	if (nv.max_clock && nv.max_clock(d, NVML_CLOCK_MEM, &v) == 0)
		g->mem_clock_max_mhz = (int)v;
	if (nv.power_limit && nv.power_limit(d, &v) == 0)
		g->power_limit_w = v / 1000.0;
	if (nv.link_state) {
		int active = 0, any = 0;
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int st = 0, type = -1;
			if (nv.link_state(d, l, &st) != 0)
				continue;
			any = 1;
			if (st != NVML_ENABLE)
				continue;
			active++;
			if (nv.link_remote_type && nv.link_remote_type(d, l, &type) == 0 &&
			    type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
				g->nvlink_to_switch = true;
		}
		g->nvlinks_active = any ? active : 0;
	}
	return 0;
}

int gb_nvml_clocks(const char *pci_bus_id, struct gb_clocks *c)
{
	nvml_dev_t d = device(pci_bus_id);
	unsigned v;
	unsigned long long r;
	if (!d)
		return -1;
	c->valid = true;
	if (nv.clock && nv.clock(d, NVML_CLOCK_SM, &v) == 0)
		c->sm_mhz = (int)v;
	if (nv.clock && nv.clock(d, NVML_CLOCK_MEM, &v) == 0)
		c->mem_mhz = (int)v;
	if (nv.reasons && nv.reasons(d, &r) == 0)
		c->reasons = r;
	if (nv.power && nv.power(d, &v) == 0)
		c->power_w = v / 1000.0;
	if (nv.temp && nv.temp(d, NVML_TEMPERATURE_GPU, &v) == 0)
		c->temp_c = v;
	return 0;
}
