/**
 * The face of runtime/notify: webhooks and their delivery, and the audit export. See README.md.
 */
export { checkWebhookUrl, WEBHOOK_EVENTS, type WebhookEvent, webhookService, type WebhookSettings, type WebhookView } from "./webhooks";
export { guardedLookup } from "./webhook-post";
export { countedListeners, createWebhookWorker } from "./webhook-delivery";
export { AUDIT_EXPORT_MAX_DAYS, AUDIT_EXPORT_PAGE_ROWS, AuditExportFormat, AuditExportRequest, auditService } from "./audit";
