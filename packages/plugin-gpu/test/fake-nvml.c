/* A fake libnvidia-ml.so.1 for the koffi binding's tests.
 *
 * Without LAYOUT: two GPUs, no MIG. With -DLAYOUT="/path/file", the GPUs and their MIG devices come from that
 * file, read again on every handle lookup (a test re-partitions by rewriting it). One item per line:
 *   gpu <uuid> <memoryTotalMiB> <migMode 0|1>
 *   mig <uuid> <gpuInstanceId> <computeInstanceId> <giProfileIndex> <giSlices> <ciSlices> <memorySizeMB>
 * a `mig` line belonging to the `gpu` above it; its position is its MIG device index, a `hole` line leaves an index
 * empty. A GPU instance's profile ID is 100 + its profile index (NVML_GPU_INSTANCE_PROFILE_*).
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

enum { SUCCESS = 0, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6, TIMEOUT = 10 };
enum { MAX_GPUS = 8, MAX_MIGS = 7, PROFILE_COUNT = 18 };

typedef struct { int gpu; int mig; } device_t; /* mig = -1: the GPU itself */
typedef struct { int gpu; int mig; } instance_t;
typedef struct { device_t *device; unsigned long long eventType; unsigned long long eventData;
                 unsigned int gpuInstanceId; unsigned int computeInstanceId; } event_t;
typedef struct { unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount,
                 sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
                 unsigned long long memorySizeMB; } attributes_t;
typedef struct { unsigned long long total, free, used; } memory_t;
typedef struct { device_t *device; unsigned int id, profileId, start, size; } instance_info_t;
typedef struct { unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
                 decoderCount, encoderCount, jpegCount, ofaCount; unsigned long long memorySizeMB; } profile_info_t;

typedef struct { int used; char uuid[96]; unsigned int gi, ci, profile, giSlices, ciSlices;
                 unsigned long long memoryMB; } mig_t;
typedef struct { char uuid[96]; unsigned long long totalMiB; unsigned int migMode; int migs; mig_t mig[MAX_MIGS]; } gpu_t;

static gpu_t gpus[MAX_GPUS];
static int gpu_count;
static device_t handles[MAX_GPUS][MAX_MIGS + 1];
static instance_t instances[MAX_GPUS][MAX_MIGS];
static int set_storage, fired;

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
      if (fscanf(file, "%95s %llu %u", gpu->uuid, &gpu->totalMiB, &gpu->migMode) != 3) break;
    } else if (strcmp(kind, "mig") == 0 && gpu != NULL && gpu->migs < MAX_MIGS) {
      mig_t *mig = &gpu->mig[gpu->migs++];
      mig->used = 1;
      if (fscanf(file, "%95s %u %u %u %u %u %llu", mig->uuid, &mig->gi, &mig->ci, &mig->profile, &mig->giSlices,
                 &mig->ciSlices, &mig->memoryMB) != 7)
        break;
    } else if (strcmp(kind, "hole") == 0 && gpu != NULL && gpu->migs < MAX_MIGS) {
      gpu->migs++;
    } else {
      break;
    }
  }
  fclose(file);
}

static device_t *handle(int gpu, int mig) {
  device_t *device = &handles[gpu][mig + 1];
  device->gpu = gpu;
  device->mig = mig;
  return device;
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
  for (int i = 0; i < gpu->migs; i++) {
    if (gpu->mig[i].used && gpu->mig[i].gi == id) {
      instances[device->gpu][i].gpu = device->gpu;
      instances[device->gpu][i].mig = i;
      *instance = &instances[device->gpu][i];
      return SUCCESS;
    }
  }
  return NOT_FOUND;
}
int nvmlGpuInstanceGetInfo(instance_t *instance, instance_info_t *info) {
  mig_t *mig = &gpus[instance->gpu].mig[instance->mig];
  info->device = handle(instance->gpu, -1);
  info->id = mig->gi;
  info->profileId = 100 + mig->profile;
  info->start = 0;
  info->size = mig->giSlices;
  return SUCCESS;
}
int nvmlDeviceGetGpuInstanceProfileInfo(device_t *device, unsigned int profile, profile_info_t *info) {
  (void)device;
  if (profile >= PROFILE_COUNT) return INVALID_ARGUMENT;
  memset(info, 0, sizeof *info);
  info->id = 100 + profile;
  return SUCCESS;
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
