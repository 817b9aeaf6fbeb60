/* loader: gpusim's side of calibrate/module.h. `gpusim calibrate` (when it has something to measure) loads the
 * CUDA module gpusim-cuda.so with dlopen, found beside the running binary (/proc/self/exe): in the build folder
 * next to gpusim, or installed as <prefix>/lib/gpusim/gpusim-cuda.so beside <prefix>/bin/gpusim; the
 * environment variable GPUSIM_CUDA_MODULE names another file. Nothing else in gpusim loads a CUDA library.
 * Where the module or the libraries it needs (CUDA runtime, cuBLASLt, NCCL, MPI) are missing, dlopen's message
 * names the missing file and calibrate exits 3. RTLD_GLOBAL: MPI implementations load plugins of their own that
 * look up libmpi's symbols globally (mpirun -np N gpusim calibrate). The module stays loaded until exit: CUDA,
 * NCCL and MPI register exit handlers inside it. */
#define _GNU_SOURCE  /* dladdr-free readlink, RTLD_* */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calibrate/module.h"
#include "calibrate/calibrate.h"
#include "util/gserr.h"
#include "util/diag.h"

#ifndef GPUSIM_VERSION
#define GPUSIM_VERSION "unknown"
#endif

#define MODULE_NAME "gpusim-cuda.so"

#ifndef GPUSIM_HAVE_CUDA

const char *calibrate_backend(void)
{
	return "not compiled in (no CUDA toolkit at build time)";
}

int calibrate_measure(const struct cal_opts *o)
{
	(void)o;
	fputs("gpusim: calibrate was not compiled in (no CUDA toolkit at build time)\n", stderr);
	return GS_EENV;
}

#else

const char *calibrate_backend(void)
{
	return "compiled in (CUDA module " MODULE_NAME ", loaded by calibrate only)";
}

/* The folder of the running binary, with its trailing '/', in dir; 0 when /proc/self/exe cannot be read. */
static int exe_dir(char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	if (n <= 0)
		return 0;
	dir[n] = 0;
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	slash[1] = 0;
	return 1;
}

/* The module's path in path: GPUSIM_CUDA_MODULE, else the first of <exe dir>/gpusim-cuda.so and
 * <exe dir>/../lib/gpusim/gpusim-cuda.so that exists. 0 (with the places looked at in path) when none does. */
static int find_module(char *path, size_t len)
{
	const char *env = getenv("GPUSIM_CUDA_MODULE");
	char dir[PATH_MAX];
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return 1;
	}
	if (!exe_dir(dir, sizeof dir)) {
		snprintf(path, len, "(the folder of gpusim: /proc/self/exe cannot be read)");
		return 0;
	}
	snprintf(path, len, "%s" MODULE_NAME, dir);
	if (access(path, F_OK) == 0)
		return 1;
	snprintf(path, len, "%s../lib/gpusim/" MODULE_NAME, dir);
	if (access(path, F_OK) == 0)
		return 1;
	snprintf(path, len, "%s" MODULE_NAME " and %s../lib/gpusim/" MODULE_NAME, dir, dir);
	return 0;
}

int calibrate_measure(const struct cal_opts *o)
{
	char path[2 * PATH_MAX + 64];
	const struct calmod *m;
	void *h;
	if (!find_module(path, sizeof path)) {
		diag_errorf("calibrate needs its CUDA module, which is not installed with this gpusim (looked for %s; set "
			    "GPUSIM_CUDA_MODULE to its path)", path);
		return GS_EENV;
	}
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		const char *why = dlerror();
		diag_errorf("calibrate cannot load its CUDA part: %s", why ? why : path);
		diag_errorf("it needs the CUDA runtime, cuBLASLt and NCCL (and MPI when built with it) of the CUDA "
			    "version gpusim was built with: install them or add their folder to LD_LIBRARY_PATH");
		return GS_EENV;
	}
	m = (const struct calmod *)dlsym(h, CALMOD_SYMBOL);
	if (!m || m->abi != CALMOD_ABI || strcmp(m->version, GPUSIM_VERSION) != 0 ||
	    m->opts_size != sizeof(struct cal_opts) || m->scenario_size != sizeof(struct scenario)) {
		diag_errorf("%s does not belong to this gpusim %s (rebuild both from one tree)", path,
			GPUSIM_VERSION);
		dlclose(h);
		return GS_EENV;
	}
	const struct calmod_host host = {
		.scenario_load = scenario_load,
	};
	return m->run(&host, o);
}

#endif
