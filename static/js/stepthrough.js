// The step-through of one verification step (filled in by the step-through work).
export function startStepThrough() {}
