/* A fake libnvidia-ml.so.1 for the koffi binding's tests.
 *
 * Without LAYOUT: two GPUs, no MIG. With -DLAYOUT="/path/file", the GPUs and their MIG devices come from that
 * file, read again on every handle lookup (a test re-partitions by rewriting it). One item per line:
 *   gpu <uuid> <memoryTotalMiB> <migMode 0|1> <chip a100-40gb|h100-80gb>
 *   gi <gpuInstanceId> <giProfileIndex> <placementStart>
 *   mig <uuid> <gpuInstanceId> <computeInstanceId> <giProfileIndex> <giSlices> <ciSlices> <memorySizeMB> <start>
 * `gi` and `mig` lines belong to the `gpu` above them. A `gi` line is a GPU instance (with or without compute
 * instances); a `mig` line is a compute instance, a MIG device: its position among the GPU's `mig` and `hole` lines
 * is its MIG device index (a `hole` leaves an index empty), and it declares its GPU instance when no `gi` line did.
 *
 * The chip decides the GPU instance profiles (nvmlDeviceGetGpuInstanceProfileInfo by NVML_GPU_INSTANCE_PROFILE_*
 * index: slices, engines, memory, as NVML reports them on an A100-SXM4-40GB or H100 80GB HBM3) and their possible
 * placements in the GPU's 8 memory slices. GPU and compute instances are created and destroyed through NVML
 * (nvmlDeviceCreateGpuInstanceWithPlacement, nvmlGpuInstanceCreateComputeInstance, nvmlComputeInstanceDestroy,
 * nvmlGpuInstanceDestroy): an instance that would overlap another is refused with NVML_ERROR_INSUFFICIENT_RESOURCES,
 * and every change is written back to the layout file, where a test reads it. A created compute instance's UUID is
 * MIG-<gpu index, 8 hex>-<gi, 4 hex>-4<ci, 3 hex>-8000-00000000cafe.
 *
 * With -DTRIGGER="/path/file", nvmlEventSetWait_v2 reports one critical Xid (79) on the second GPU once that file
 * exists, then times out. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef TRIGGER
#define TRIGGER NULL
#endif
#ifndef LAYOUT
#define LAYOUT NULL
#endif

enum {
  SUCCESS = 0, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6, INSUFFICIENT_SIZE = 7, TIMEOUT = 10,
  IN_USE = 19, INSUFFICIENT_RESOURCES = 23
};
enum { MAX_GPUS = 8, MAX_MIGS = 7, MAX_GIS = 15, PROFILE_COUNT = 18, MEMORY_SLICES = 8 };

typedef struct { int gpu; int mig; } device_t; /* mig = -1: the GPU itself */
typedef struct { int gpu; int gi; } instance_t; /* gi: index into gpu_t.gi */
typedef struct { int gpu; int mig; } compute_t; /* mig: index into gpu_t.mig */
typedef struct { device_t *device; unsigned long long eventType; unsigned long long eventData;
                 unsigned int gpuInstanceId; unsigned int computeInstanceId; } event_t;
typedef struct { unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount,
                 sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
                 unsigned long long memorySizeMB; } attributes_t;
typedef struct { unsigned long long total, free, used; } memory_t;
typedef struct { unsigned int start, size; } placement_t;
typedef struct { device_t *device; unsigned int id, profileId; placement_t placement; } instance_info_t;
typedef struct { device_t *device; instance_t *gpuInstance; unsigned int id, profileId; placement_t placement; }
    compute_info_t;
typedef struct { unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
                 decoderCount, encoderCount, jpegCount, ofaCount; unsigned long long memorySizeMB; } profile_info_t;
typedef struct { unsigned int id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
                 sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount; } ci_profile_info_t;

/* One GPU instance profile of a chip; `starts` is a bit mask of the memory slices a placement may start at. */
typedef struct { int index; unsigned int id, slices, instances, sm, ce, dec, enc, jpeg, ofa, size, starts;
                 unsigned long long memoryMB; } profile_t;

/* Of the order `nvidia-smi mig -lgip` / `-lgipp` lists on these parts: index, ID, slices, instances, SMs, copy
 * engines, decoders, encoders, JPEG, OFA, placement size, starts, memory (MiB). */
static const profile_t A100_40GB[] = {
    {0, 19, 1, 7, 14, 1, 0, 0, 0, 0, 1, 0x7f, 4864},  /* 1g.5gb */
    {7, 20, 1, 1, 14, 1, 1, 0, 1, 1, 1, 0x7f, 4864},  /* 1g.5gb+me */
    {9, 15, 1, 4, 14, 1, 1, 0, 0, 0, 2, 0x55, 9856},  /* 1g.10gb */
    {1, 14, 2, 3, 28, 2, 1, 0, 0, 0, 2, 0x15, 9856},  /* 2g.10gb */
    {2, 9, 3, 2, 42, 3, 2, 0, 0, 0, 4, 0x11, 19968},  /* 3g.20gb */
    {3, 5, 4, 1, 56, 4, 2, 0, 0, 0, 4, 0x01, 19968},  /* 4g.20gb */
    {4, 0, 7, 1, 98, 7, 5, 0, 1, 1, 8, 0x01, 40192},  /* 7g.40gb */
};
static const profile_t H100_80GB[] = {
    {0, 19, 1, 7, 16, 1, 1, 0, 1, 0, 1, 0x7f, 9984},    /* 1g.10gb */
    {7, 20, 1, 1, 16, 1, 1, 0, 1, 1, 1, 0x7f, 9984},    /* 1g.10gb+me */
    {9, 15, 1, 4, 26, 1, 1, 0, 1, 0, 2, 0x55, 20096},   /* 1g.20gb */
    {1, 14, 2, 3, 32, 2, 2, 0, 2, 0, 2, 0x15, 20096},   /* 2g.20gb */
    {2, 9, 3, 2, 60, 3, 3, 0, 3, 0, 4, 0x11, 40448},    /* 3g.40gb */
    {3, 5, 4, 1, 64, 4, 4, 0, 4, 0, 4, 0x01, 40448},    /* 4g.40gb */
    {4, 0, 7, 1, 132, 8, 7, 0, 7, 1, 8, 0x01, 80896},   /* 7g.80gb */
};
enum { PROFILES = sizeof A100_40GB / sizeof A100_40GB[0] };
/* NVML_COMPUTE_INSTANCE_PROFILE_* index → slices (1, 2, 3, 4, 7, 8, 6). */
static const unsigned int CI_SLICES[] = {1, 2, 3, 4, 7, 8, 6};
enum { CI_PROFILES = sizeof CI_SLICES / sizeof CI_SLICES[0] };

typedef struct { int used; unsigned int id, profile, start; } gi_t;
typedef struct { int used; char uuid[96]; unsigned int gi, ci, profile, giSlices, ciSlices, start;
                 unsigned long long memoryMB; } mig_t;
typedef struct { char uuid[96]; char chip[16]; unsigned long long totalMiB; unsigned int migMode; int migs;
                 mig_t mig[MAX_MIGS]; gi_t gi[MAX_GIS]; } gpu_t;

static gpu_t gpus[MAX_GPUS];
static int gpu_count;
static device_t handles[MAX_GPUS][MAX_MIGS + 1];
static instance_t instances[MAX_GPUS][MAX_GIS];
static compute_t computes[MAX_GPUS][MAX_MIGS];
static int set_storage, fired;

static const profile_t *profiles_of(const gpu_t *gpu) {
  return strcmp(gpu->chip, "a100-40gb") == 0 ? A100_40GB : H100_80GB;
}
static const profile_t *profile_by_index(const gpu_t *gpu, unsigned int index) {
  for (int i = 0; i < PROFILES; i++)
    if (profiles_of(gpu)[i].index == (int)index) return &profiles_of(gpu)[i];
  return NULL;
}
static const profile_t *profile_by_id(const gpu_t *gpu, unsigned int id) {
  for (int i = 0; i < PROFILES; i++)
    if (profiles_of(gpu)[i].id == id) return &profiles_of(gpu)[i];
  return NULL;
}
/* A GPU instance's profile ID: the chip's, else 100 + its index for a profile the chip table does not model. */
static unsigned int profile_id(const gpu_t *gpu, unsigned int index) {
  const profile_t *profile = profile_by_index(gpu, index);
  return profile != NULL ? profile->id : 100 + index;
}
static gi_t *gi_by_id(gpu_t *gpu, unsigned int id) {
  for (int i = 0; i < MAX_GIS; i++)
    if (gpu->gi[i].used && gpu->gi[i].id == id) return &gpu->gi[i];
  return NULL;
}
static gi_t *add_gi(gpu_t *gpu, unsigned int id, unsigned int profile, unsigned int start) {
  gi_t *gi = gi_by_id(gpu, id);
  for (int i = 0; gi == NULL && i < MAX_GIS; i++)
    if (!gpu->gi[i].used) gi = &gpu->gi[i];
  if (gi == NULL) return NULL;
  gi->used = 1;
  gi->id = id;
  gi->profile = profile;
  gi->start = start;
  return gi;
}
/* The memory slices a GPU instance covers: its profile's placement size, else its slice count. */
static unsigned int gi_size(const gpu_t *gpu, const gi_t *gi) {
  const profile_t *profile = profile_by_index(gpu, gi->profile);
  if (profile != NULL) return profile->size;
  for (int i = 0; i < gpu->migs; i++)
    if (gpu->mig[i].used && gpu->mig[i].gi == gi->id) return gpu->mig[i].giSlices;
  return 1;
}

static void load(void) {
  const char *layout = LAYOUT;
  if (layout == NULL) {
    gpu_count = 2;
    strcpy(gpus[0].uuid, "GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01");
    strcpy(gpus[1].uuid, "GPU-7a2d4e19-15c3-4b8f-9e62-2c0a7d5b3e02");
    return;
  }
  memset(gpus, 0, sizeof gpus);
  gpu_count = 0;
  FILE *file = fopen(layout, "r");
  if (file == NULL) return;
  char kind[8];
  while (fscanf(file, "%7s", kind) == 1) {
    gpu_t *gpu = gpu_count > 0 ? &gpus[gpu_count - 1] : NULL;
    if (strcmp(kind, "gpu") == 0 && gpu_count < MAX_GPUS) {
      gpu = &gpus[gpu_count++];
      if (fscanf(file, "%95s %llu %u %15s", gpu->uuid, &gpu->totalMiB, &gpu->migMode, gpu->chip) != 4) break;
    } else if (strcmp(kind, "gi") == 0 && gpu != NULL) {
      unsigned int id, profile, start;
      if (fscanf(file, "%u %u %u", &id, &profile, &start) != 3) break;
      add_gi(gpu, id, profile, start);
    } else if (strcmp(kind, "mig") == 0 && gpu != NULL && gpu->migs < MAX_MIGS) {
      mig_t *mig = &gpu->mig[gpu->migs++];
      mig->used = 1;
      if (fscanf(file, "%95s %u %u %u %u %u %llu %u", mig->uuid, &mig->gi, &mig->ci, &mig->profile, &mig->giSlices,
                 &mig->ciSlices, &mig->memoryMB, &mig->start) != 8)
        break;
      if (gi_by_id(gpu, mig->gi) == NULL) add_gi(gpu, mig->gi, mig->profile, mig->start);
    } else if (strcmp(kind, "hole") == 0 && gpu != NULL && gpu->migs < MAX_MIGS) {
      gpu->migs++;
    } else {
      break;
    }
  }
  fclose(file);
}

/* Writes the state back to the layout file, in the format load() reads. */
static int save(void) {
  const char *layout = LAYOUT;
  if (layout == NULL) return NOT_SUPPORTED;
  FILE *file = fopen(layout, "w");
  if (file == NULL) return NOT_SUPPORTED;
  for (int g = 0; g < gpu_count; g++) {
    const gpu_t *gpu = &gpus[g];
    fprintf(file, "gpu %s %llu %u %s\n", gpu->uuid, gpu->totalMiB, gpu->migMode, gpu->chip);
    for (int i = 0; i < MAX_GIS; i++)
      if (gpu->gi[i].used) fprintf(file, "gi %u %u %u\n", gpu->gi[i].id, gpu->gi[i].profile, gpu->gi[i].start);
    for (int i = 0; i < gpu->migs; i++) {
      const mig_t *m = &gpu->mig[i];
      if (!m->used) fprintf(file, "hole\n");
      else
        fprintf(file, "mig %s %u %u %u %u %u %llu %u\n", m->uuid, m->gi, m->ci, m->profile, m->giSlices, m->ciSlices,
                m->memoryMB, m->start);
    }
  }
  fclose(file);
  return SUCCESS;
}

static device_t *handle(int gpu, int mig) {
  device_t *device = &handles[gpu][mig + 1];
  device->gpu = gpu;
  device->mig = mig;
  return device;
}
static instance_t *instance_handle(int gpu, int gi) {
  instance_t *instance = &instances[gpu][gi];
  instance->gpu = gpu;
  instance->gi = gi;
  return instance;
}

static mig_t *mig_of(const device_t *device) {
  return device->mig < 0 ? NULL : &gpus[device->gpu].mig[device->mig];
}

int nvmlInit_v2(void) { load(); return SUCCESS; }
int nvmlShutdown(void) { return SUCCESS; }
int nvmlDeviceGetCount_v2(unsigned int *count) { load(); *count = (unsigned int)gpu_count; return SUCCESS; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, device_t **device) {
  if (index >= (unsigned int)gpu_count) return INVALID_ARGUMENT;
  *device = handle((int)index, -1);
  return SUCCESS;
}
int nvmlDeviceGetHandleByUUID(const char *uuid, device_t **device) {
  load();
  for (int i = 0; i < gpu_count; i++) {
    if (strcmp(gpus[i].uuid, uuid) == 0) {
      *device = handle(i, -1);
      return SUCCESS;
    }
  }
  return NOT_FOUND;
}
int nvmlDeviceGetUUID(device_t *device, char *uuid, unsigned int length) {
  mig_t *mig = mig_of(device);
  strncpy(uuid, mig != NULL ? mig->uuid : gpus[device->gpu].uuid, length);
  return SUCCESS;
}
int nvmlDeviceGetMemoryInfo(device_t *device, memory_t *memory) {
  if (device->mig >= 0) return NOT_SUPPORTED;
  memory->total = gpus[device->gpu].totalMiB * 1024ULL * 1024ULL;
  memory->free = memory->total;
  memory->used = 0;
  return SUCCESS;
}
int nvmlDeviceGetMigMode(device_t *device, unsigned int *current, unsigned int *pending) {
  *current = *pending = gpus[device->gpu].migMode;
  return SUCCESS;
}
int nvmlDeviceGetMaxMigDeviceCount(device_t *device, unsigned int *count) {
  *count = gpus[device->gpu].migMode ? MAX_MIGS : 0;
  return SUCCESS;
}
int nvmlDeviceGetMigDeviceHandleByIndex(device_t *device, unsigned int index, device_t **mig) {
  gpu_t *gpu = &gpus[device->gpu];
  if (index >= MAX_MIGS) return INVALID_ARGUMENT;
  if ((int)index >= gpu->migs || !gpu->mig[index].used) return NOT_FOUND;
  *mig = handle(device->gpu, (int)index);
  return SUCCESS;
}
int nvmlDeviceGetGpuInstanceId(device_t *device, unsigned int *id) {
  mig_t *mig = mig_of(device);
  if (mig == NULL) return INVALID_ARGUMENT;
  *id = mig->gi;
  return SUCCESS;
}
int nvmlDeviceGetComputeInstanceId(device_t *device, unsigned int *id) {
  mig_t *mig = mig_of(device);
  if (mig == NULL) return INVALID_ARGUMENT;
  *id = mig->ci;
  return SUCCESS;
}
int nvmlDeviceGetAttributes_v2(device_t *device, attributes_t *attributes) {
  mig_t *mig = mig_of(device);
  if (mig == NULL) return NOT_SUPPORTED;
  memset(attributes, 0, sizeof *attributes);
  attributes->multiprocessorCount = 14 * mig->ciSlices;
  attributes->gpuInstanceSliceCount = mig->giSlices;
  attributes->computeInstanceSliceCount = mig->ciSlices;
  attributes->memorySizeMB = mig->memoryMB;
  return SUCCESS;
}
int nvmlDeviceGetGpuInstanceById(device_t *device, unsigned int id, instance_t **instance) {
  gpu_t *gpu = &gpus[device->gpu];
  gi_t *gi = gi_by_id(gpu, id);
  if (gi == NULL) return NOT_FOUND;
  *instance = instance_handle(device->gpu, (int)(gi - gpu->gi));
  return SUCCESS;
}
int nvmlGpuInstanceGetInfo(instance_t *instance, instance_info_t *info) {
  gpu_t *gpu = &gpus[instance->gpu];
  gi_t *gi = &gpu->gi[instance->gi];
  if (!gi->used) return INVALID_ARGUMENT;
  info->device = handle(instance->gpu, -1);
  info->id = gi->id;
  info->profileId = profile_id(gpu, gi->profile);
  info->placement.start = gi->start;
  info->placement.size = gi_size(gpu, gi);
  return SUCCESS;
}
int nvmlDeviceGetGpuInstanceProfileInfo(device_t *device, unsigned int index, profile_info_t *info) {
  if (index >= PROFILE_COUNT) return INVALID_ARGUMENT;
  gpu_t *gpu = &gpus[device->gpu];
  memset(info, 0, sizeof *info);
  info->id = profile_id(gpu, index);
  const profile_t *profile = profile_by_index(gpu, index);
  if (profile == NULL) return SUCCESS;
  info->sliceCount = profile->slices;
  info->instanceCount = profile->instances;
  info->multiprocessorCount = profile->sm;
  info->copyEngineCount = profile->ce;
  info->decoderCount = profile->dec;
  info->encoderCount = profile->enc;
  info->jpegCount = profile->jpeg;
  info->ofaCount = profile->ofa;
  info->memorySizeMB = profile->memoryMB;
  return SUCCESS;
}
int nvmlDeviceGetGpuInstancePossiblePlacements_v2(device_t *device, unsigned int profileId, placement_t *placements,
                                                  unsigned int *count) {
  gpu_t *gpu = &gpus[device->gpu];
  if (!gpu->migMode) return NOT_SUPPORTED;
  const profile_t *profile = profile_by_id(gpu, profileId);
  if (profile == NULL) return INVALID_ARGUMENT;
  unsigned int n = 0;
  for (unsigned int start = 0; start < MEMORY_SLICES; start++) {
    if (!(profile->starts & (1u << start))) continue;
    if (placements != NULL) {
      if (n >= *count) return INSUFFICIENT_SIZE;
      placements[n].start = start;
      placements[n].size = profile->size;
    }
    n++;
  }
  *count = n;
  return SUCCESS;
}
int nvmlDeviceCreateGpuInstanceWithPlacement(device_t *device, unsigned int profileId, const placement_t *placement,
                                             instance_t **instance) {
  load();
  gpu_t *gpu = &gpus[device->gpu];
  if (!gpu->migMode) return NOT_SUPPORTED;
  const profile_t *profile = profile_by_id(gpu, profileId);
  if (profile == NULL || placement->start >= MEMORY_SLICES || !(profile->starts & (1u << placement->start)))
    return INVALID_ARGUMENT;
  unsigned int end = placement->start + profile->size;
  unsigned int taken = 0, next = 1;
  for (int i = 0; i < MAX_GIS; i++) {
    gi_t *gi = &gpu->gi[i];
    if (!gi->used) continue;
    if (placement->start < gi->start + gi_size(gpu, gi) && gi->start < end) return INSUFFICIENT_RESOURCES;
    if (profile_id(gpu, gi->profile) == profileId) taken++;
    if (gi->id >= next) next = gi->id + 1;
  }
  if (taken >= profile->instances) return INSUFFICIENT_RESOURCES;
  gi_t *gi = add_gi(gpu, next, (unsigned int)profile->index, placement->start);
  if (gi == NULL) return INSUFFICIENT_RESOURCES;
  *instance = instance_handle(device->gpu, (int)(gi - gpu->gi));
  return save();
}
int nvmlGpuInstanceDestroy(instance_t *instance) {
  load();
  gpu_t *gpu = &gpus[instance->gpu];
  gi_t *gi = &gpu->gi[instance->gi];
  if (!gi->used) return INVALID_ARGUMENT;
  for (int i = 0; i < gpu->migs; i++)
    if (gpu->mig[i].used && gpu->mig[i].gi == gi->id) return IN_USE;
  gi->used = 0;
  return save();
}
int nvmlGpuInstanceGetComputeInstanceProfileInfo(instance_t *instance, unsigned int profile, unsigned int engProfile,
                                                 ci_profile_info_t *info) {
  gpu_t *gpu = &gpus[instance->gpu];
  gi_t *gi = &gpu->gi[instance->gi];
  const profile_t *gip = profile_by_index(gpu, gi->profile);
  if (engProfile != 0 || profile >= CI_PROFILES) return INVALID_ARGUMENT;
  if (gip == NULL || CI_SLICES[profile] > gip->slices) return NOT_SUPPORTED;
  memset(info, 0, sizeof *info);
  info->id = profile;
  info->sliceCount = CI_SLICES[profile];
  info->instanceCount = gip->slices / CI_SLICES[profile];
  info->multiprocessorCount = gip->sm / gip->slices * CI_SLICES[profile];
  return SUCCESS;
}
int nvmlGpuInstanceCreateComputeInstance(instance_t *instance, unsigned int profileId, compute_t **compute) {
  load();
  gpu_t *gpu = &gpus[instance->gpu];
  gi_t *gi = &gpu->gi[instance->gi];
  const profile_t *gip = profile_by_index(gpu, gi->profile);
  if (!gi->used || gip == NULL || profileId >= CI_PROFILES || CI_SLICES[profileId] > gip->slices)
    return INVALID_ARGUMENT;
  unsigned int used = 0, next = 0;
  for (int i = 0; i < gpu->migs; i++) {
    mig_t *m = &gpu->mig[i];
    if (!m->used || m->gi != gi->id) continue;
    used += m->ciSlices;
    if (m->ci >= next) next = m->ci + 1;
  }
  if (used + CI_SLICES[profileId] > gip->slices) return INSUFFICIENT_RESOURCES;
  int slot = -1;
  for (int i = 0; i < gpu->migs && slot < 0; i++)
    if (!gpu->mig[i].used) slot = i;
  if (slot < 0 && gpu->migs < MAX_MIGS) slot = gpu->migs++;
  if (slot < 0) return INSUFFICIENT_RESOURCES;
  mig_t *m = &gpu->mig[slot];
  memset(m, 0, sizeof *m);
  m->used = 1;
  snprintf(m->uuid, sizeof m->uuid, "MIG-%08x-%04x-4%03x-8000-00000000cafe", (unsigned int)instance->gpu, gi->id, next);
  m->gi = gi->id;
  m->ci = next;
  m->profile = gi->profile;
  m->giSlices = gip->slices;
  m->ciSlices = CI_SLICES[profileId];
  m->memoryMB = gip->memoryMB;
  m->start = gi->start;
  compute_t *handle = &computes[instance->gpu][slot];
  handle->gpu = instance->gpu;
  handle->mig = slot;
  *compute = handle;
  return save();
}
int nvmlGpuInstanceGetComputeInstanceById(instance_t *instance, unsigned int id, compute_t **compute) {
  gpu_t *gpu = &gpus[instance->gpu];
  for (int i = 0; i < gpu->migs; i++) {
    mig_t *m = &gpu->mig[i];
    if (!m->used || m->gi != gpu->gi[instance->gi].id || m->ci != id) continue;
    computes[instance->gpu][i].gpu = instance->gpu;
    computes[instance->gpu][i].mig = i;
    *compute = &computes[instance->gpu][i];
    return SUCCESS;
  }
  return NOT_FOUND;
}
int nvmlComputeInstanceGetInfo_v2(compute_t *compute, compute_info_t *info) {
  gpu_t *gpu = &gpus[compute->gpu];
  mig_t *m = &gpu->mig[compute->mig];
  if (!m->used) return INVALID_ARGUMENT;
  gi_t *gi = gi_by_id(gpu, m->gi);
  info->device = handle(compute->gpu, -1);
  info->gpuInstance = gi == NULL ? NULL : instance_handle(compute->gpu, (int)(gi - gpu->gi));
  info->id = m->ci;
  info->profileId = 0;
  for (unsigned int p = 0; p < CI_PROFILES; p++)
    if (CI_SLICES[p] == m->ciSlices) info->profileId = p;
  info->placement.start = 0;
  info->placement.size = m->ciSlices;
  return SUCCESS;
}
int nvmlComputeInstanceDestroy(compute_t *compute) {
  load();
  gpu_t *gpu = &gpus[compute->gpu];
  mig_t *m = &gpu->mig[compute->mig];
  if (!m->used) return INVALID_ARGUMENT;
  m->used = 0;
  while (gpu->migs > 0 && !gpu->mig[gpu->migs - 1].used) gpu->migs--;
  return save();
}
int nvmlEventSetCreate(void **set) { *set = &set_storage; return SUCCESS; }
int nvmlEventSetFree(void *set) { (void)set; return SUCCESS; }
int nvmlDeviceRegisterEvents(device_t *device, unsigned long long types, void *set) {
  (void)device; (void)set;
  return types == 0x8 ? SUCCESS : NOT_SUPPORTED;
}
int nvmlEventSetWait_v2(void *set, event_t *data, unsigned int timeoutms) {
  (void)set;
  const char *trigger = TRIGGER;
  for (unsigned int waited = 0; waited < timeoutms; waited += 10) {
    if (!fired && trigger != NULL && access(trigger, F_OK) == 0) {
      fired = 1;
      data->device = handle(1, -1);
      data->eventType = 0x8;
      data->eventData = 79;
      data->gpuInstanceId = 0xffffffff;
      data->computeInstanceId = 0xffffffff;
      return SUCCESS;
    }
    usleep(10000);
  }
  return TIMEOUT;
}
