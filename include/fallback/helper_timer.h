/* warpcheck fallback for the CUDA samples' <helper_timer.h>: the StopWatchInterface timers,
 * declared for host code to parse (see README.h). */
#ifndef WARPCHECK_FALLBACK_HELPER_TIMER_H
#define WARPCHECK_FALLBACK_HELPER_TIMER_H
class StopWatchInterface {
 public:
  StopWatchInterface() {}
  virtual ~StopWatchInterface() {}
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void reset() = 0;
  virtual float getTime() = 0;
  virtual float getAverageTime() = 0;
};
bool sdkCreateTimer(StopWatchInterface **timer_interface);
bool sdkDeleteTimer(StopWatchInterface **timer_interface);
bool sdkStartTimer(StopWatchInterface **timer_interface);
bool sdkStopTimer(StopWatchInterface **timer_interface);
bool sdkResetTimer(StopWatchInterface **timer_interface);
float sdkGetAverageTimerValue(StopWatchInterface **timer_interface);
float sdkGetTimerValue(StopWatchInterface **timer_interface);
#endif
