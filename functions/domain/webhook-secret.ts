// What makes a webhook secret usable, one rule for every place that takes one: the deployed webhook's secret, the local
// `webhook` command's and `check`, which judges both. GitHub signs deliveries with it (HMAC-SHA256); a short one is
// guessable offline from any signed delivery, so fewer than 16 characters is refused everywhere alike.

export const minimumWebhookSecretLength = 16;

/** Why `secret` cannot be used, said without its value; undefined when it can. */
export function webhookSecretProblem(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return 'is not set: the webhook cannot check signatures';
  if (secret.length < minimumWebhookSecretLength) return `is shorter than ${minimumWebhookSecretLength} characters (it has ${secret.length}): a short secret can be guessed from any signed delivery`;
  return undefined;
}
