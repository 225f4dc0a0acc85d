import { z } from "zod";
import {
  brandingSchema,
  emailTemplatesSchema,
  newTenantSchema,
  tenantSettingsSchema,
} from "../../shared/schemas/tenant";
import { limitsPatchSchema } from "../../shared/schemas/tenant-limits";
import { API_STATUS } from "./errors";

/**
 * The OpenAPI 3.1 document of the tenant API and the functions API, served at /api/openapi.json.
 * Request bodies come from the same zod schemas the routes validate with, so they cannot drift;
 * tests/integration/openapi.test.ts checks every documented operation against the real routes.
 */

export interface FunctionDoc {
  name: string;
  summary: string;
  anonymous: boolean;
  input: z.ZodType;
}

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

const errorBody = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["status", "message"],
      properties: {
        status: { type: "string", enum: Object.keys(API_STATUS) },
        message: { type: "string" },
        fields: {
          type: "object",
          additionalProperties: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
};

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const ok = (description: string, schema: object = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});

const body = (schema: z.ZodType | object) => ({
  required: true,
  content: {
    "application/json": { schema: schema instanceof z.ZodType ? json(schema) : schema },
  },
});

const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };
const superAdmin = [{ authToken: [] }, { sessionCookie: [] }];
const writeErrors = {
  "400": error("Invalid input (INVALID_ARGUMENT), with a message per field"),
  "401": error("No valid session or token (UNAUTHENTICATED)"),
  "403": error("Not a super admin (PERMISSION_DENIED)"),
  "404": error("No such tenant (NOT_FOUND)"),
  "409": error("Conflict: id or domain taken, main tenant, tenant with data (ABORTED)"),
};
const tenantRef = { $ref: "#/components/schemas/TenantEnvelope" };

export function openApiDocument(functions: readonly FunctionDoc[]) {
  const functionPaths = Object.fromEntries(
    functions.map((fn) => [
      `/api/functions/${fn.name}`,
      {
        post: {
          operationId: fn.name,
          tags: ["functions"],
          summary: fn.summary,
          description: fn.anonymous
            ? "Anyone may call this function (rate-limited per address)."
            : "Staff only: a session cookie or an x-auth-token.",
          ...(fn.anonymous ? { security: [{}, ...superAdmin] } : { security: superAdmin }),
          requestBody: body({
            type: "object",
            required: ["data"],
            properties: { data: json(fn.input) },
          }),
          responses: {
            "200": ok("The function's result", {
              type: "object",
              required: ["result"],
              properties: { result: {} },
            }),
            "400": error("Invalid input (INVALID_ARGUMENT)"),
            "401": error("Sign-in needed (UNAUTHENTICATED)"),
            "403": error("No access to that tenant (PERMISSION_DENIED)"),
            "404": error("Unknown function or record (NOT_FOUND)"),
            "429": error("Too many calls (RESOURCE_EXHAUSTED)"),
            "500": error("Unexpected failure (INTERNAL)"),
            "503": error("Mail or provider unavailable (UNAVAILABLE)"),
          },
        },
      },
    ]),
  );

  return {
    openapi: "3.1.0",
    info: {
      title: "Herald API",
      version: "1.0.0",
      description:
        "The tenant API and the functions API (SPEC §7). Errors are `{ error: { status, message } }` with the HTTP status of SPEC §8.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        authToken: {
          type: "apiKey",
          in: "header",
          name: "x-auth-token",
          description: "A staff session token or an API token (created at /admin/api-tokens)",
        },
        sessionCookie: { type: "apiKey", in: "cookie", name: "herald_session" },
      },
      schemas: {
        Error: errorBody,
        TenantEnvelope: {
          type: "object",
          required: ["tenant"],
          properties: {
            tenant: {
              type: "object",
              description:
                "The tenant's configuration; anonymous callers and staff without access get its public part (id, name, domain, description, branding, features).",
            },
          },
        },
        TenantSettings: json(tenantSettingsSchema),
      },
    },
    paths: {
      "/api/auth/verify": {
        get: {
          operationId: "verifyAuth",
          tags: ["auth"],
          summary: "Who an x-auth-token belongs to",
          security: [{ authToken: [] }],
          responses: {
            "200": ok("The token is valid", {
              type: "object",
              required: ["isAdmin"],
              properties: {
                isAdmin: { type: "boolean" },
                user: { type: "object" },
                via: { type: "string", enum: ["session-token", "api-token"] },
              },
            }),
            "401": error("No valid token (UNAUTHENTICATED)"),
          },
        },
      },
      "/api/tenants": {
        get: {
          operationId: "listTenants",
          tags: ["tenants"],
          summary: "The tenants the caller may manage",
          security: superAdmin,
          responses: {
            "200": ok("Tenants", {
              type: "object",
              properties: { tenants: { type: "array", items: { type: "object" } } },
            }),
            "401": error("No valid session or token (UNAUTHENTICATED)"),
          },
        },
        post: {
          operationId: "createTenant",
          tags: ["tenants"],
          summary: "Create a tenant (super admins)",
          security: superAdmin,
          requestBody: body(
            newTenantSchema.extend(tenantSettingsSchema.omit({ name: true }).partial().shape),
          ),
          responses: { "201": ok("Created", tenantRef), ...writeErrors },
        },
      },
      "/api/tenants/domain/{domain}": {
        get: {
          operationId: "getTenantByDomain",
          tags: ["tenants"],
          summary: "The tenant served on a host name (open)",
          parameters: [{ name: "domain", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": ok("The tenant", tenantRef), "404": error("NOT_FOUND") },
        },
      },
      "/api/tenants/{id}": {
        get: {
          operationId: "getTenant",
          tags: ["tenants"],
          summary: "A tenant (open; staff with access get the whole configuration)",
          parameters: [idParam],
          responses: { "200": ok("The tenant", tenantRef), "404": error("NOT_FOUND") },
        },
        put: {
          operationId: "replaceTenantSettings",
          tags: ["tenants"],
          summary: "Replace a tenant's settings (super admins)",
          security: superAdmin,
          parameters: [idParam],
          requestBody: body({
            allOf: [
              { $ref: "#/components/schemas/TenantSettings" },
              {
                type: "object",
                properties: {
                  domain: {
                    type: ["string", "null"],
                    description: "Left out: kept as it is; null: the tenant has no domain",
                  },
                },
              },
            ],
          }),
          responses: { "200": ok("Saved", tenantRef), ...writeErrors },
        },
        delete: {
          operationId: "deleteTenant",
          tags: ["tenants"],
          summary: "Delete a tenant (super admins; never main; force=true when it has data)",
          security: superAdmin,
          parameters: [
            idParam,
            {
              name: "force",
              in: "query",
              required: false,
              schema: { type: "string", enum: ["true", "false"] },
            },
          ],
          responses: {
            "200": ok("Deleted", {
              type: "object",
              properties: { deleted: { type: "string" }, removed: { type: "object" } },
            }),
            ...writeErrors,
          },
        },
      },
      "/api/tenants/{id}/branding": {
        patch: {
          operationId: "patchTenantBranding",
          tags: ["tenants"],
          summary: "Change some branding fields (super admins)",
          security: superAdmin,
          parameters: [idParam],
          requestBody: body(brandingSchema.partial()),
          responses: { "200": ok("Saved", tenantRef), ...writeErrors },
        },
      },
      "/api/tenants/{id}/email-templates": {
        patch: {
          operationId: "patchTenantEmailTemplates",
          tags: ["tenants"],
          summary: "Change some email template fields (super admins)",
          security: superAdmin,
          parameters: [idParam],
          requestBody: body(
            z
              .object({
                welcomeEmail: emailTemplatesSchema.shape.welcomeEmail.partial(),
                confirmationEmail: emailTemplatesSchema.shape.confirmationEmail.partial(),
                verificationEmail: emailTemplatesSchema.shape.verificationEmail.partial(),
                bounceNotificationEmail:
                  emailTemplatesSchema.shape.bounceNotificationEmail.partial(),
              })
              .partial(),
          ),
          responses: { "200": ok("Saved", tenantRef), ...writeErrors },
        },
      },
      "/api/tenants/{id}/limits": {
        get: {
          operationId: "getTenantLimits",
          tags: ["tenants"],
          summary: "A tenant's limits, its own values, the defaults and its usage (super admins)",
          security: superAdmin,
          parameters: [idParam],
          responses: { "200": ok("Limits", { type: "object" }), ...writeErrors },
        },
        patch: {
          operationId: "patchTenantLimits",
          tags: ["tenants"],
          summary:
            'Change some limits (super admins): a whole number, "unlimited", or null for the default',
          security: superAdmin,
          parameters: [idParam],
          requestBody: body(limitsPatchSchema),
          responses: { "200": ok("Saved", { type: "object" }), ...writeErrors },
        },
      },
      "/api/tenants/{id}/email-groups": {
        get: {
          operationId: "getTenantEmailGroups",
          tags: ["tenants"],
          summary: "The lists a visitor may subscribe to (open)",
          parameters: [idParam],
          responses: {
            "200": ok("Lists", {
              type: "object",
              properties: {
                default: { type: "string" },
                groups: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: {
                      id: { type: "string" },
                      key: { type: "string" },
                      name: { type: "string" },
                      description: { type: "string" },
                    },
                  },
                },
              },
            }),
            "404": error("NOT_FOUND"),
          },
        },
      },
      ...functionPaths,
    },
  };
}
