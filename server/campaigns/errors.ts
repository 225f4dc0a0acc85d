/**
 * A campaign refused with a message staff (and the API) see as it is. Its own module so that the
 * API's error mapping (server/api/errors.ts) does not import the campaign rules, which import the
 * tenant modules that throw API errors.
 */
export class CampaignError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}
