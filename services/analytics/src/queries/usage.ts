/**
 * Usage (spec §2, §4.8): test case executions of the organization in its billing period. An execution is
 * one test case on one platform in one run (retries are not counted again), counted in the hour it started.
 * Without a plan: the free tier, 5,000 a month (calendar month, UTC), 1 project. Ingest never refuses
 * results past the limit; usage shows the overage.
 */
import { FREE_PLAN, keptInstant, Plan, type Usage } from '@verdict/contracts';
import { ServiceUnavailableError, type SqlExecutor } from '@verdict/platform';

export interface UsageStore {
  db: SqlExecutor;
  /** Schema of the analytics read model (usage_hours). */
  schema: string;
  /** Schema of the organizations read model. */
  organizations: string;
}

export interface Period {
  start: Date;
  end: Date;
}

const addMonths = (at: Date, months: number): Date => {
  const next = new Date(at.getTime());
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
};

/**
 * The billing period holding `now`: the plan's own period while it lasts; once it ended, the periods of a
 * month that follow it; before it starts, or without one, the calendar month (UTC).
 *
 * @example billingPeriod(plan, clock.now())
 */
export function billingPeriod(plan: Plan, now: Date): Period {
  const calendar = (): Period => {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    return { start, end: addMonths(start, 1) };
  };
  if (plan.periodStart === null || plan.periodEnd === null) return calendar();
  const start = new Date(plan.periodStart);
  const end = new Date(plan.periodEnd);
  if (now < start) return calendar();
  if (now < end) return { start, end };
  let periodStart = end;
  for (let months = 1; ; months += 1) {
    const periodEnd = addMonths(end, months);
    if (now < periodEnd) return { start: periodStart, end: periodEnd };
    periodStart = periodEnd;
  }
}

/** @example const usage = await usageOf(store, projectId, clock.now()); */
export async function usageOf(store: UsageStore, projectId: string, now: Date): Promise<Usage> {
  const o = store.organizations;
  const { rows: found } = await store.db.query<{ organization_id: string; name: string; plan: unknown }>(
    `SELECT p.organization_id, o.name, o.plan FROM ${o}.projects p JOIN ${o}.organizations o ON o.id = p.organization_id
     WHERE p.id = $1`,
    [projectId],
  );
  const organization = found[0];
  if (!organization) {
    throw new ServiceUnavailableError('Usage of this project is not known yet; try again shortly');
  }
  const stored = Plan.safeParse(organization.plan);
  const plan = stored.success ? stored.data : FREE_PLAN;
  const period = billingPeriod(plan, now);
  const { rows: projects } = await store.db.query<{
    id: string;
    name: string;
    allocation: number | null;
    used: number;
  }>(
    `SELECT p.id, p.name, p.allocation,
       coalesce((SELECT sum(u.executions) FROM ${store.schema}.usage_hours u
                 WHERE u.project_id = p.id AND u.hour >= $2 AND u.hour < $3), 0)::int AS used
     FROM ${o}.projects p WHERE p.organization_id = $1 ORDER BY p.created_at, p.id`,
    [organization.organization_id, period.start, period.end],
  );
  const orgUsed = projects.reduce((sum, p) => sum + p.used, 0);
  const orgRemaining = Math.max(0, plan.testCaseLimit - orgUsed);
  const allocated = projects.reduce((sum, p) => sum + (p.allocation ?? 0), 0);
  const unallocatedPool = Math.max(0, plan.testCaseLimit - allocated);
  // Projects without an allocation share the pool; what they used of it is gone for each of them.
  const poolUsed = projects.filter((p) => p.allocation === null).reduce((sum, p) => sum + p.used, 0);
  const remainingOf = (p: (typeof projects)[number]) =>
    p.allocation === null
      ? Math.min(orgRemaining, Math.max(0, unallocatedPool - poolUsed))
      : Math.min(orgRemaining, Math.max(0, p.allocation - p.used));
  const projectUsage = projects.map((p) => ({
    id: p.id,
    name: p.name,
    allocated: p.allocation ?? 0,
    used: p.used,
    remaining: remainingOf(p),
  }));
  const mine = projectUsage.find((p) => p.id === projectId) ?? {
    allocated: 0,
    used: 0,
    remaining: 0,
  };
  return {
    planName: plan.name,
    orgName: organization.name,
    projects: projects.map((p) => ({ id: p.id, name: p.name })),
    orgLimit: plan.testCaseLimit,
    orgUsed,
    orgRemaining,
    projectAllocated: mine.allocated,
    projectUsed: mine.used,
    projectRemaining: mine.remaining,
    unallocatedPool,
    projectUsage,
    periodStart: keptInstant(period.start),
    periodEnd: keptInstant(period.end),
    resetDate: keptInstant(period.end),
  };
}
