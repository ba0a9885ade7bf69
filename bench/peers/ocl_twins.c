/* ocl_twins.c: the OpenCL peer. Opens the first CPU device, builds the embedded seeds.cl for it,
 * and runs a seed case's twin over the case's own host buffers (CL_MEM_USE_HOST_PTR), so the
 * bench driver times and checks it exactly like a gridtune launch. The OpenCL objects live here
 * and nowhere else: callers see gt_ocl and gt_ocl_case only. */
#include "bench/peers/ocl_twins.h"
#include "tuner/clock.h"

#include "seeds_cl.h" /* gt_seeds_cl_source, generated from seeds.cl by the build */

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OCL_BUILD_OPTIONS "-cl-std=CL1.2" /* nothing that relaxes float semantics */
#define OCL_NAME_MAX 256
#define OCL_MAX_PLATFORMS 16
#define OCL_EMPTY_WARMUPS 3 /* the first launches of a kernel also compile and load it */

struct gt_ocl {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order: each command starts after the one before it ends */
    cl_program program;
    cl_kernel empty;
    char name[OCL_NAME_MAX];
};

struct gt_ocl_case {
    gt_ocl *ocl;
    gt_seed_case *c;
    cl_kernel kernel;
    unsigned nmem;
    cl_mem mem[GT_SEED_MAX_BUFFERS];  /* mem[i] wraps c->buffers[i] */
    void *view[GT_SEED_MAX_BUFFERS]; /* mem[i]'s mapping, NULL while the device owns it */
};

/* ---- errors -------------------------------------------------------------------------------- */

static const char *cl_code_name(cl_int code)
{
    switch (code) {
    case CL_DEVICE_NOT_FOUND:
        return "device not found";
    case CL_DEVICE_NOT_AVAILABLE:
        return "device not available";
    case CL_COMPILER_NOT_AVAILABLE:
        return "compiler not available";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "memory object allocation failure";
    case CL_OUT_OF_RESOURCES:
        return "out of resources";
    case CL_OUT_OF_HOST_MEMORY:
        return "out of host memory";
    case CL_BUILD_PROGRAM_FAILURE:
        return "build failure";
    case CL_MAP_FAILURE:
        return "map failure";
    case CL_INVALID_VALUE:
        return "invalid value";
    case CL_INVALID_PLATFORM:
        return "invalid platform";
    case CL_INVALID_DEVICE:
        return "invalid device";
    case CL_INVALID_CONTEXT:
        return "invalid context";
    case CL_INVALID_COMMAND_QUEUE:
        return "invalid command queue";
    case CL_INVALID_HOST_PTR:
        return "invalid host pointer";
    case CL_INVALID_MEM_OBJECT:
        return "invalid memory object";
    case CL_INVALID_BUFFER_SIZE:
        return "invalid buffer size";
    case CL_INVALID_BUILD_OPTIONS:
        return "invalid build options";
    case CL_INVALID_PROGRAM_EXECUTABLE:
        return "program not built";
    case CL_INVALID_KERNEL_NAME:
        return "no kernel of that name";
    case CL_INVALID_KERNEL:
        return "invalid kernel";
    case CL_INVALID_ARG_INDEX:
        return "invalid argument index";
    case CL_INVALID_ARG_VALUE:
        return "invalid argument value";
    case CL_INVALID_ARG_SIZE:
        return "invalid argument size";
    case CL_INVALID_KERNEL_ARGS:
        return "kernel arguments not all set";
    case CL_INVALID_WORK_DIMENSION:
        return "invalid work dimension";
    case CL_INVALID_WORK_GROUP_SIZE:
        return "invalid workgroup size";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "invalid work-item size";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "invalid global size";
    case CL_PLATFORM_NOT_FOUND_KHR:
        return "no ICD found";
    default:
        return "see CL/cl.h";
    }
}

static int cl_code_errno(cl_int code)
{
    switch (code) {
    case CL_PLATFORM_NOT_FOUND_KHR:
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
        return -ENODEV;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
        return -ENOMEM;
    default:
        return -EIO;
    }
}

/* "what: call: code (name)", and the errno that goes with the code. */
static int cl_fail(char *err, size_t errlen, const char *what, const char *call, cl_int code)
{
    snprintf(err, errlen, "%s: %s: %d (%s)", what, call, (int)code, cl_code_name(code));
    return cl_code_errno(code);
}

/* ---- opening the device -------------------------------------------------------------------- */

/* The first platform with a CPU device; the last clGetDeviceIDs code when none has one. */
static int find_cpu_device(cl_device_id *device, cl_platform_id *platform, char *err, size_t errlen)
{
    cl_platform_id platforms[OCL_MAX_PLATFORMS];
    cl_uint count = 0;
    cl_int rc = clGetPlatformIDs(OCL_MAX_PLATFORMS, platforms, &count);
    if (rc != CL_SUCCESS)
        return cl_fail(err, errlen, "no OpenCL platform", "clGetPlatformIDs", rc);
    if (count == 0)
        return cl_fail(err, errlen, "no OpenCL platform", "clGetPlatformIDs", CL_PLATFORM_NOT_FOUND_KHR);
    if (count > OCL_MAX_PLATFORMS)
        count = OCL_MAX_PLATFORMS;
    for (cl_uint i = 0; i < count; i++) {
        rc = clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, device, NULL);
        if (rc == CL_SUCCESS) {
            *platform = platforms[i];
            return 0;
        }
    }
    char what[96];
    snprintf(what, sizeof what, "no OpenCL CPU device on any of %u platform%s", count, count == 1 ? "" : "s");
    return cl_fail(err, errlen, what, "clGetDeviceIDs", rc);
}

static void name_device(gt_ocl *o, cl_platform_id platform)
{
    char platform_name[OCL_NAME_MAX] = "?", device_name[OCL_NAME_MAX] = "?";
    (void)clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL);
    (void)clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL);
    platform_name[sizeof platform_name - 1] = device_name[sizeof device_name - 1] = '\0';
    snprintf(o->name, sizeof o->name, "%s / %s", platform_name, device_name);
}

/* The failure sentence, then as much of the compiler's log as fits after it. */
static int build_fail(gt_ocl *o, cl_int code, char *err, size_t errlen)
{
    char what[OCL_NAME_MAX + 32];
    snprintf(what, sizeof what, "building seeds.cl for %s", o->name);
    int rc = cl_fail(err, errlen, what, "clBuildProgram", code);
    size_t used = strlen(err), log_bytes = 0;
    if (code != CL_BUILD_PROGRAM_FAILURE || used + 3 >= errlen ||
        clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_bytes) != CL_SUCCESS)
        return rc;
    char *log = malloc(log_bytes + 1);
    if (!log)
        return rc;
    if (clGetProgramBuildInfo(o->program, o->device, CL_PROGRAM_BUILD_LOG, log_bytes, log, NULL) == CL_SUCCESS) {
        log[log_bytes] = '\0';
        size_t end = strlen(log);
        while (end > 0 && (log[end - 1] == '\n' || log[end - 1] == ' ' || log[end - 1] == '\0'))
            log[--end] = '\0';
        snprintf(err + used, errlen - used, ": %s", log);
    }
    free(log);
    return rc;
}

static int build_program(gt_ocl *o, char *err, size_t errlen)
{
    const char *source = gt_seeds_cl_source;
    cl_int rc;
    o->program = clCreateProgramWithSource(o->context, 1, &source, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, errlen, "loading seeds.cl", "clCreateProgramWithSource", rc);
    rc = clBuildProgram(o->program, 1, &o->device, OCL_BUILD_OPTIONS, NULL, NULL);
    if (rc != CL_SUCCESS)
        return build_fail(o, rc, err, errlen);
    o->empty = clCreateKernel(o->program, "empty", &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, errlen, "seeds.cl's kernel empty", "clCreateKernel", rc);
    return 0;
}

int gt_ocl_open(gt_ocl **out, char *err, size_t errlen)
{
    *out = NULL;
    gt_ocl *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory for the OpenCL peer");
        return -ENOMEM;
    }
    cl_platform_id platform = NULL;
    int ret = find_cpu_device(&o->device, &platform, err, errlen);
    if (ret < 0) {
        gt_ocl_close(o);
        return ret;
    }
    name_device(o, platform);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int rc;
    o->context = clCreateContext(props, 1, &o->device, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        ret = cl_fail(err, errlen, o->name, "clCreateContext", rc);
    } else {
        o->queue = clCreateCommandQueue(o->context, o->device, 0, &rc);
        ret = rc != CL_SUCCESS ? cl_fail(err, errlen, o->name, "clCreateCommandQueue", rc)
                               : build_program(o, err, errlen);
    }
    if (ret < 0) {
        gt_ocl_close(o);
        return ret;
    }
    *out = o;
    return 0;
}

void gt_ocl_close(gt_ocl *o)
{
    if (!o)
        return;
    if (o->empty)
        clReleaseKernel(o->empty);
    if (o->program)
        clReleaseProgram(o->program);
    if (o->queue)
        clReleaseCommandQueue(o->queue);
    if (o->context)
        clReleaseContext(o->context);
    free(o);
}

const char *gt_ocl_device_name(const gt_ocl *o)
{
    return o->name;
}

/* ---- buffer ownership -----------------------------------------------------------------------
 * With CL_MEM_USE_HOST_PTR an implementation may keep its own copy of a buffer and sync it with
 * c->buffers[i] only at map and unmap, so the spec lets the host touch that memory only while
 * the buffer is mapped. A case therefore keeps every buffer mapped while the host owns it: from
 * open, between runs, until close. A run unmaps them (the host's writes, the driver's poison
 * among them, reach the device), launches, and maps them again (the kernel's output reaches
 * c->buffers). pocl's CPU devices run on the host memory itself, so there map and unmap copy
 * nothing and cost one queued command each: a few microseconds a run, against the 0.2-2 s
 * kernels of the default sizes. The mapped pointer is c->buffers[i] itself, as the spec
 * promises for USE_HOST_PTR; map_all checks it. */

/* Maps every buffer not mapped yet. The maps are queued, not waited for: the caller's clFinish
 * makes them complete before the host reads. */
static int map_all(gt_ocl_case *oc, char *err, size_t errlen)
{
    for (unsigned i = 0; i < oc->nmem; i++) {
        if (oc->view[i])
            continue;
        cl_int rc;
        oc->view[i] = clEnqueueMapBuffer(oc->ocl->queue, oc->mem[i], CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         oc->c->buffer_bytes[i], 0, NULL, NULL, &rc);
        if (rc != CL_SUCCESS) {
            oc->view[i] = NULL;
            return cl_fail(err, errlen, oc->c->bench->name, "clEnqueueMapBuffer", rc);
        }
        if (oc->view[i] != oc->c->buffers[i]) {
            snprintf(err, errlen, "%s: buffer %u mapped at %p, not at its host pointer %p", oc->c->bench->name, i,
                     oc->view[i], oc->c->buffers[i]);
            return -EIO;
        }
    }
    return 0;
}

static int unmap_all(gt_ocl_case *oc, char *err, size_t errlen)
{
    for (unsigned i = 0; i < oc->nmem; i++) {
        if (!oc->view[i])
            continue;
        cl_int rc = clEnqueueUnmapMemObject(oc->ocl->queue, oc->mem[i], oc->view[i], 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            return cl_fail(err, errlen, oc->c->bench->name, "clEnqueueUnmapMemObject", rc);
        oc->view[i] = NULL;
    }
    return 0;
}

static int finish(gt_ocl_case *oc, char *err, size_t errlen)
{
    cl_int rc = clFinish(oc->ocl->queue);
    return rc == CL_SUCCESS ? 0 : cl_fail(err, errlen, oc->c->bench->name, "clFinish", rc);
}

/* ---- cases --------------------------------------------------------------------------------- */

static int create_buffers(gt_ocl_case *oc, char *err, size_t errlen)
{
    gt_seed_case *c = oc->c;
    for (unsigned i = 0; i < c->nbuffers; i++) {
        cl_mem_flags access = i == c->output ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
        cl_int rc;
        oc->mem[i] = clCreateBuffer(oc->ocl->context, access | CL_MEM_USE_HOST_PTR, c->buffer_bytes[i],
                                    c->buffers[i], &rc);
        if (rc != CL_SUCCESS)
            return cl_fail(err, errlen, c->bench->name, "clCreateBuffer", rc);
        oc->nmem = i + 1;
    }
    return 0;
}

/* The seed arguments are the buffers (each a pointer to one of c->buffers) then the scalars. */
static int set_args(gt_ocl_case *oc, char *err, size_t errlen)
{
    gt_seed_case *c = oc->c;
    cl_uint nparams = 0;
    cl_int rc = clGetKernelInfo(oc->kernel, CL_KERNEL_NUM_ARGS, sizeof nparams, &nparams, NULL);
    if (rc != CL_SUCCESS)
        return cl_fail(err, errlen, c->bench->name, "clGetKernelInfo", rc);
    if (nparams != c->nargs) {
        snprintf(err, errlen, "%s: seeds.cl's %s takes %u arguments, the seed case passes %u", c->bench->name,
                 c->bench->kernel, (unsigned)nparams, c->nargs);
        return -EINVAL;
    }
    for (unsigned a = 0; a < c->nargs; a++) {
        const gt_arg_value *arg = &c->args[a];
        if (arg->is_buffer) {
            unsigned i = 0;
            while (i < oc->nmem && c->buffers[i] != arg->v.ptr)
                i++;
            if (i == oc->nmem) {
                snprintf(err, errlen, "%s: argument %u points to none of the case's %u buffers", c->bench->name,
                         a, oc->nmem);
                return -EINVAL;
            }
            rc = clSetKernelArg(oc->kernel, a, sizeof(cl_mem), &oc->mem[i]);
        } else {
            rc = clSetKernelArg(oc->kernel, a, arg->size, &arg->v);
        }
        if (rc != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "%s: argument %u", c->bench->name, a);
            return cl_fail(err, errlen, what, "clSetKernelArg", rc);
        }
    }
    return 0;
}

int gt_ocl_case_open(gt_ocl *o, gt_seed_case *c, gt_ocl_case **out, char *err, size_t errlen)
{
    *out = NULL;
    gt_ocl_case *oc = calloc(1, sizeof *oc);
    if (!oc) {
        snprintf(err, errlen, "%s: out of memory for the OpenCL case", c->bench->name);
        return -ENOMEM;
    }
    oc->ocl = o;
    oc->c = c;
    cl_int rc;
    oc->kernel = clCreateKernel(o->program, c->bench->kernel, &rc);
    int ret = rc != CL_SUCCESS ? cl_fail(err, errlen, c->bench->name, "clCreateKernel", rc) : 0;
    if (ret == 0)
        ret = create_buffers(oc, err, errlen);
    if (ret == 0)
        ret = set_args(oc, err, errlen);
    if (ret == 0)
        ret = map_all(oc, err, errlen);
    if (ret == 0)
        ret = finish(oc, err, errlen);
    if (ret < 0) {
        gt_ocl_case_close(oc);
        return ret;
    }
    *out = oc;
    return 0;
}

/* The queue is in order, so the launch waits for the unmaps and the maps wait for the launch;
 * one clFinish at the end waits for all of them. The maps are queued even when the launch
 * failed, so the host owns its buffers again whatever happened. */
int gt_ocl_case_run(gt_ocl_case *oc, char *err, size_t errlen)
{
    gt_seed_case *c = oc->c;
    int ret = unmap_all(oc, err, errlen);
    if (ret == 0) {
        cl_int rc = clEnqueueNDRangeKernel(oc->ocl->queue, oc->kernel, c->range.dims, NULL, c->range.global,
                                           c->range.local, 0, NULL, NULL);
        if (rc != CL_SUCCESS)
            ret = cl_fail(err, errlen, c->bench->name, "clEnqueueNDRangeKernel", rc);
    }
    char later[256];
    int mapped = map_all(oc, later, sizeof later);
    if (mapped == 0)
        mapped = finish(oc, later, sizeof later);
    if (ret == 0 && mapped < 0) {
        snprintf(err, errlen, "%s", later);
        ret = mapped;
    }
    return ret;
}

void gt_ocl_case_close(gt_ocl_case *oc)
{
    if (!oc)
        return;
    /* Unmapped before release, as the spec asks; a failure here leaves nothing to undo. */
    char ignored[256];
    if (unmap_all(oc, ignored, sizeof ignored) == 0)
        (void)finish(oc, ignored, sizeof ignored);
    for (unsigned i = 0; i < oc->nmem; i++)
        clReleaseMemObject(oc->mem[i]);
    if (oc->kernel)
        clReleaseKernel(oc->kernel);
    free(oc);
}

/* ---- launch overhead ----------------------------------------------------------------------- */

static int launch_empty(gt_ocl *o, char *err, size_t errlen)
{
    const size_t one = 1;
    cl_int rc = clEnqueueNDRangeKernel(o->queue, o->empty, 1, NULL, &one, &one, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return cl_fail(err, errlen, "empty kernel", "clEnqueueNDRangeKernel", rc);
    rc = clFinish(o->queue);
    return rc == CL_SUCCESS ? 0 : cl_fail(err, errlen, "empty kernel", "clFinish", rc);
}

int gt_ocl_empty_roundtrip(gt_ocl *o, unsigned reps, uint64_t *ns, char *err, size_t errlen)
{
    if (reps > 0 && !ns) {
        snprintf(err, errlen, "empty round trip: %u repetitions but nowhere to put their times", reps);
        return -EINVAL;
    }
    for (unsigned i = 0; i < OCL_EMPTY_WARMUPS; i++) {
        int ret = launch_empty(o, err, errlen);
        if (ret < 0)
            return ret;
    }
    for (unsigned i = 0; i < reps; i++) {
        uint64_t start = gt_clock_ns();
        int ret = launch_empty(o, err, errlen);
        if (ret < 0)
            return ret;
        ns[i] = gt_clock_ns() - start;
    }
    return 0;
}
