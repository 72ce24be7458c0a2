// Types of restart-policy.cjs, for the tests written in TypeScript.
export interface RestartPolicy {
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  readonly resetAfterMs: number;
}
export declare const RESTART_POLICY: RestartPolicy;
export declare function nextStreak(streak: number, uptimeMs: number, policy?: RestartPolicy): number;
export declare function restartDelay(streak: number, policy?: RestartPolicy): number;
export declare function describeDelay(ms: number): string;
