/* strategy.h: how analysis spends its samples over the candidate space.
 * The axes are explored in turn (assignment, item order, group order, then assignment again
 * when the orders moved); in each, the best schedule so far defends against the variations of
 * that axis. racing halves the field after
 * every stage; nested is the seed's loop, every style and parameter once per round. Both stop
 * an axis early when its winner is clear, or when every candidate costs the same. */
#ifndef GT_STRATEGY_H
#define GT_STRATEGY_H

#include "sampler.h"

/* Runs the analysis on a ready sampler and sets r's winner, source, reason and gain. */
int gt_strategy_run(const gt_tune_config *cfg, gt_sampler *s, gt_tune_result *r, char *err, size_t errlen);

#endif
