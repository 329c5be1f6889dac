/**
 * A typed array's contents in a larger one: how the simulators' typed-array stores (event queues,
 * packet pool, route table) grow when they reach a new peak.
 */
export function grownInt32(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(size);
  bigger.set(array);
  return bigger;
}

export function grownFloat64(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(size);
  bigger.set(array);
  return bigger;
}
