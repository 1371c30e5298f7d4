{{/*
Shared by the monitoring templates (monitoring-*.yaml), all off by default: the components
Prometheus scrapes and the label matchers that scope the rules to this release's series.
*/}}

{{/*
Each scraped component and the Service port its /metrics is on: the gRPC services serve it on a
port of their own (METRICS_PORT, Service port "metrics"), the HTTP components on their API port
(Service port "http"), as the pods' prometheus.io annotations say. The simulators only while they run.
*/}}
{{- define "atelier.monitoring.scrapePorts" -}}
{{- $ports := dict "catalog" "metrics" "media" "metrics" "jobs" "metrics" "community" "metrics" "webhooks" "metrics" "gateway" "http" "worker" "http" }}
{{- if .Values.providerSim.enabled }}
{{- $_ := set $ports "provider-sim" "http" }}
{{- end }}
{{- if .Values.petDirectorySim.enabled }}
{{- $_ := set $ports "pet-directory-sim" "metrics" }}
{{- end }}
{{- toJson $ports }}
{{- end }}

{{/*
The label matchers every rule puts on the release's own series (not on the NATS exporter's):
monitoring.prometheusRule.seriesSelector, else the namespace label that ServiceMonitor targets carry.
*/}}
{{- define "atelier.monitoring.seriesSelector" -}}
{{- .Values.monitoring.prometheusRule.seriesSelector | default (printf "namespace=%q" .Release.Namespace) }}
{{- end }}
