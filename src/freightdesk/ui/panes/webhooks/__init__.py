"""The Webhooks pane: push configurations, their form, test deliveries and the delivery log."""
