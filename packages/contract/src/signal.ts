// Filled by issue 15's work (see docs/plan-15.md).
export {};
