/* A fake libnvidia-ml.so.1 for the koffi binding's test: two GPUs; nvmlEventSetWait_v2 reports one critical
 * Xid (79) on the second GPU once the file TRIGGER (compiled in with -DTRIGGER=...) exists, then times out. */
#include <string.h>
#include <unistd.h>

typedef struct { int index; } device_t;
typedef struct { device_t *device; unsigned long long eventType; unsigned long long eventData;
                 unsigned int gpuInstanceId; unsigned int computeInstanceId; } event_t;
static device_t devices[2] = { { 0 }, { 1 } };
static const char *uuids[2] = { "GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01", "GPU-7a2d4e19-15c3-4b8f-9e62-2c0a7d5b3e02" };
static int set_storage, fired;

int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, device_t **device) {
  if (index > 1) return 2;
  *device = &devices[index];
  return 0;
}
int nvmlDeviceGetUUID(device_t *device, char *uuid, unsigned int length) {
  strncpy(uuid, uuids[device->index], length);
  return 0;
}
int nvmlEventSetCreate(void **set) { *set = &set_storage; return 0; }
int nvmlEventSetFree(void *set) { (void)set; return 0; }
int nvmlDeviceRegisterEvents(device_t *device, unsigned long long types, void *set) {
  (void)device; (void)set;
  return types == 0x8 ? 0 : 3;
}
int nvmlEventSetWait_v2(void *set, event_t *data, unsigned int timeoutms) {
  (void)set;
  const char *trigger = TRIGGER;
  for (unsigned int waited = 0; waited < timeoutms; waited += 10) {
    if (!fired && trigger != NULL && access(trigger, F_OK) == 0) {
      fired = 1;
      data->device = &devices[1];
      data->eventType = 0x8;
      data->eventData = 79;
      data->gpuInstanceId = 0xffffffff;
      data->computeInstanceId = 0xffffffff;
      return 0;
    }
    usleep(10000);
  }
  return 10;
}
