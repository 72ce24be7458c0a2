/**
 * The demo data of a fresh installation (issue item 8): one organization on the free tier, one project,
 * its owner and a personal token, so that `npm start` is followed by a working API call. Runs only while
 * no organization exists; the demo user's e-mail stream is the guard when two processes start at once
 * (the second creation is refused and that process seeds nothing).
 */
import type { AdminUser } from '@verdict/contracts';
import { ConflictError } from '@verdict/platform';
import type { CommandContext, IdentityCommands } from './commands';
import type { IdentityReadModel } from './projections/identityReadModel';

export const DEMO_EMAIL = 'demo@verdict.local';

export interface DemoSeed {
  organizationId: string;
  projectId: string;
  userId: string;
  tokenId: string;
  /** The demo token's cleartext: it exists only in this answer. */
  token: string;
}

/** The demo user, or null when it exists already: then another start has seeded (or is seeding). */
async function createDemoUser(
  commands: IdentityCommands,
  context: CommandContext,
): Promise<AdminUser | null> {
  try {
    return await commands.createUser({ email: DEMO_EMAIL, firstName: 'Demo', lastName: 'User' }, context);
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
}

/**
 * Seeds the demo identity once; null when anything was seeded or created before.
 *
 * @example const seed = await seedDemo(commands, readModel); if (seed) print(seed.token);
 */
export async function seedDemo(
  commands: IdentityCommands,
  readModel: IdentityReadModel,
): Promise<DemoSeed | null> {
  if (await readModel.hasOrganizations()) return null;
  const context = { correlationId: 'seed-demo' };
  const user = await createDemoUser(commands, context);
  if (!user) return null;
  const organization = await commands.createOrganization({ name: 'Demo' }, context);
  await commands.setMembership(organization.id, user.id, { role: 'owner' }, context);
  const project = await commands.createProject(organization.id, { name: 'Demo project' }, context);
  const issued = await commands.issueToken(
    { kind: 'personal', userId: user.id, name: 'Demo token', projectIds: [project.id] },
    context,
  );
  return {
    organizationId: organization.id,
    projectId: project.id,
    userId: user.id,
    tokenId: issued.id,
    token: issued.token,
  };
}
