/* junit.h - a results list as JUnit XML (harness/results/junit.c). */
#ifndef UG_JUNIT_H
#define UG_JUNIT_H

#include "base/buf.h"
#include "harness/results/results.h"

/* Append the JUnit XML of res (rows grouped by case, in order) to b. */
void ug_junit(ug_buf *b, const ug_results *res);

#endif
