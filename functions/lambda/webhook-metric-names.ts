// The names the webhook's metrics are emitted under, in a module of their own so that the stack's alarm and dashboard
// read the same constant the Lambda writes (and load no Powertools to do so).
export const webhookMetricNames = { refused: 'WebhookDeliveriesRefused', queued: 'WebhookDeliveriesQueued', repeated: 'WebhookDeliveriesRepeated' } as const;
