/** The algorithm choices `collective --algo` takes; kept free of imports so the CLI can declare flags cheaply. */
export const ALGORITHM_CHOICES = ['auto', 'ring', 'tree', 'hierarchical'] as const;
export type AlgorithmChoice = (typeof ALGORITHM_CHOICES)[number];
