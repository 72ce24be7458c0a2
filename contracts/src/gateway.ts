import { z } from 'zod';
import { MembershipRole } from './identity';

/** Spec §4.1: token-info takes no parameters; one sent is a mistake worth a 400, as on usage and dashboard. */
export const TokenInfoQuery = z.strictObject({});

/** Spec §2 "Token metadata", the `data` of GET /{projectId}/token-info (spec §4.1). */
export const TokenInfo = z.object({
  id: z.string(),
  scopes: z
    .array(z.string())
    .describe(
      'The source of truth for project access: `organizations/<organizationId>/projects/<projectId>` for each project the token reaches, then capability scopes such as `public-api`.',
    ),
  projectName: z.string(),
  expiresAt: z.iso
    .datetime()
    .nullable()
    .describe(
      'When the token stops working (by default 365 days after it was issued); null only for a token an earlier version issued with expiresAt: null (issuing one is refused now)',
    ),
  createdAt: z.iso.datetime(),
  lastUsed: z.iso.datetime().describe('Time of the latest authenticated request of the token (this one)'),
  usageCount: z.number().int().describe('Authenticated requests of the token, this one included'),
  rateLimit: z.object({ limit: z.number().int(), window: z.string() }),
  role: MembershipRole.describe(
    "The role of the token's owner (for a project token, the user who created it) in this project's organization: owner, admin and member may make changes, viewer may only read (spec §5.4); webhook changes need owner or admin",
  ),
});
export type TokenInfo = z.infer<typeof TokenInfo>;

/** The path of every project-scoped route. */
export const ProjectPath = z.object({ projectId: z.string().min(1) });

/**
 * Where the gateway serves artifact downloads. Their URLs are signed and expire (API.md: default 15
 * minutes); the signature is the credential, so no bearer token is asked for.
 */
export const SIGNED_DOWNLOAD_PATH = '/downloads';
