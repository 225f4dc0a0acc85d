/** SPEC §5 and §8 texts. */
export const CAMPAIGN_MESSAGES = {
  required: "Subject and content are required",
  noGroups: "No valid groups specified",
  badSender: "Invalid sender email format",
  idRequired: "Campaign ID is required",
  notFound: "Campaign not found",
} as const;

/**
 * A campaign refused with a message staff (and the API) see as it is. Its own module so that the
 * API's error mapping (server/api/errors.ts) does not import the campaign rules, which import the
 * tenant modules that throw API errors.
 */
export class CampaignError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 429 = 400,
  ) {
    super(message);
  }
}
