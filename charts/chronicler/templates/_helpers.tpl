{{/* Names, labels and the per-service merge of `defaults` with `services.<name>`. */}}

{{- define "chronicler.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "chronicler.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The object name of one service: <fullname>-<service>. Call with (list $ "gateway"). */}}
{{- define "chronicler.serviceName" -}}
{{- $root := index . 0 }}
{{- printf "%s-%s" (include "chronicler.fullname" $root | trunc 40 | trimSuffix "-") (index . 1) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "chronicler.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "chronicler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: chronicler
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "chronicler.selectorLabels" -}}
app.kubernetes.io/name: {{ include "chronicler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one service's objects. Call with (list $ "gateway"). */}}
{{- define "chronicler.serviceLabels" -}}
{{ include "chronicler.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "chronicler.serviceSelectorLabels" -}}
{{ include "chronicler.selectorLabels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* `defaults` merged under `services.<name>` (as YAML; read back with fromYaml). */}}
{{- define "chronicler.serviceValues" -}}
{{- $root := index . 0 }}
{{- $own := index $root.Values.services (index . 1) | default dict }}
{{- toYaml (mergeOverwrite (deepCopy $root.Values.defaults) (deepCopy $own)) }}
{{- end }}

{{- define "chronicler.image" -}}
{{- $root := index . 0 }}
{{- $name := index . 1 }}
{{- $img := (index . 2).image | default dict }}
{{- $repo := $img.repository | default (printf "%s%s" $root.Values.image.repositoryPrefix $name) }}
{{- $tag := $img.tag | default $root.Values.image.tag | default $root.Chart.AppVersion }}
{{- printf "%s:%s" $repo $tag }}
{{- end }}

{{- define "chronicler.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "chronicler.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "chronicler.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-secrets" (include "chronicler.fullname" .)) }}
{{- end }}

{{/* Services that are on: the names in the order of `services`. */}}
{{- define "chronicler.enabledServices" -}}
{{- range $name, $svc := .Values.services }}
{{- if $svc.enabled }}
- {{ $name }}
{{- end }}
{{- end }}
{{- end }}

{{/* PUBLIC_URL: the configured one, else the Ingress's address. */}}
{{- define "chronicler.publicUrl" -}}
{{- if .Values.config.PUBLIC_URL }}
{{- .Values.config.PUBLIC_URL }}
{{- else if .Values.ingress.enabled }}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host }}
{{- end }}
{{- end }}

{{/*
Checks that a schema cannot express (bitnami's validateValues): each fails the render with
a message naming the value.
*/}}
{{- define "chronicler.validateValues" -}}
{{- $msgs := list }}
{{- range $key := list "nats" "postgresql" "redis" }}
{{- $v := index $.Values $key }}
{{- if and (not $v.url) (not $.Values.existingSecret) }}
{{- $msgs = append $msgs (printf "%s.url is empty: set it, or give existingSecret with its variable" $key) }}
{{- end }}
{{- end }}
{{- $needs := include "chronicler.needs" . | fromJson }}
{{- range $name, $_ := .Values.services }}
{{- if not (hasKey $needs $name) }}
{{- $msgs = append $msgs (printf "services.%s has no declaration in the chart's needs.json (what it needs: bus, schema, redis, disk, secrets, egress)" $name) }}
{{- end }}
{{- end }}
{{- $bot := index .Values.services "voice-bot" | default dict }}
{{- if and $bot.enabled $bot.shardCount (lt (int $bot.shardCount) (int $bot.replicas)) }}
{{- $msgs = append $msgs (printf "services.voice-bot.shardCount (%v) must be at least services.voice-bot.replicas (%v): every pod runs one shard or more" $bot.shardCount $bot.replicas) }}
{{- end }}
{{- $secret := .Values.secrets.AUTH_JWT_SECRET | default "" }}
{{- if and $secret (lt (len $secret) 32) }}
{{- $msgs = append $msgs "secrets.AUTH_JWT_SECRET must be at least 32 characters" }}
{{- end }}
{{- if $msgs }}
{{- fail (printf "\nVALUES VALIDATION:\n%s" (join "\n" $msgs)) }}
{{- end }}
{{- end }}

{{/* "true" when the chart generates AUTH_JWT_SECRET (neither existingSecret nor the value is given). */}}
{{- define "chronicler.generatedJwtSecret" -}}
{{- if and (not .Values.existingSecret) (not .Values.secrets.AUTH_JWT_SECRET) }}true{{- end }}
{{- end }}

{{- define "chronicler.jwtSecretName" -}}
{{- printf "%s-jwt" (include "chronicler.fullname" .) }}
{{- end }}

{{/*
"true" when the chart generates LIVE_INGEST_KEY (neither existingSecret nor the value is given):
every gateway replica then signs and checks ingest tokens with the same key, across restarts.
*/}}
{{- define "chronicler.generatedIngestKey" -}}
{{- if and (not .Values.existingSecret) (not .Values.secrets.LIVE_INGEST_KEY) }}true{{- end }}
{{- end }}

{{- define "chronicler.ingestKeySecretName" -}}
{{- printf "%s-live-ingest" (include "chronicler.fullname" .) }}
{{- end }}

{{/*
What the pods' checksum/config covers: the ConfigMap and the secrets the values give (never a
generated one, which would differ at every render without a cluster and restart every pod).
*/}}
{{- define "chronicler.configChecksum" -}}
{{- $given := dict }}
{{- range $k, $v := .Values.secrets }}{{- if $v }}{{- $_ := set $given $k $v }}{{- end }}{{- end }}
{{- print (include (print .Template.BasePath "/configmap.yaml") .) (toJson $given) .Values.existingSecret | sha256sum }}
{{- end }}

{{/*
What each service needs (needs.json, the one declaration; the code reads a byte-identical copy,
services/shared/contracts/src/service-needs.json): bus, schema, redis, disk, secrets, egress.
*/}}
{{- define "chronicler.needs" -}}
{{- .Files.Get "needs.json" }}
{{- end }}

{{/* The declaration of one service. Call with (list $ name). */}}
{{- define "chronicler.serviceNeeds" -}}
{{- $root := index . 0 }}
{{- $name := index . 1 }}
{{- toJson (index (include "chronicler.needs" $root | fromJson) $name) }}
{{- end }}

{{/*
The services that own a schema (needs.json `schema`): each gets a migration Job, with its own
hook weight (its place in this list, by name). No schema reads another's tables today; one that
comes to depend on another gets a later place here.
*/}}
{{- define "chronicler.migratedServices" -}}
{{- $owners := list }}
{{- range $name, $need := include "chronicler.needs" . | fromJson }}
{{- if $need.schema }}{{- $owners = append $owners $name }}{{- end }}
{{- end }}
{{- toJson $owners }}
{{- end }}

{{/*
A pod's secret keys, each from its Secret by name: only those its declaration lists (planning
never sees the Discord bot token). Call with (list $ name).
*/}}
{{- define "chronicler.secretEnv" -}}
{{- $root := index . 0 }}
{{- $needs := include "chronicler.serviceNeeds" . | fromJson }}
{{- range $key := $needs.secrets }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      {{- if and (eq $key "AUTH_JWT_SECRET") (include "chronicler.generatedJwtSecret" $root) }}
      name: {{ include "chronicler.jwtSecretName" $root }}
      {{- else if and (eq $key "LIVE_INGEST_KEY") (include "chronicler.generatedIngestKey" $root) }}
      name: {{ include "chronicler.ingestKeySecretName" $root }}
      {{- else }}
      name: {{ include "chronicler.secretName" $root }}
      optional: true
      {{- end }}
      key: {{ $key }}
{{- end }}
{{- end }}

{{/* The pod's database variables: its password from passwordSecret, then DATABASE_URL. Call with $. */}}
{{- define "chronicler.databaseEnv" -}}
{{- if .Values.postgresql.passwordSecret.name }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.postgresql.passwordSecret.name }}
      key: {{ .Values.postgresql.passwordSecret.key }}
{{- end }}
{{- if .Values.postgresql.url }}
- name: DATABASE_URL
  value: {{ .Values.postgresql.url | quote }}
{{- else }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.existingSecret }}
      key: DATABASE_URL
{{- end }}
{{- end }}

{{/*
One egress rule: TCP (and UDP with `udp`) on `ports` to the peers `to`; nothing at all when
`to` is empty, so no rule opens a port to every address by default.
*/}}
{{- define "chronicler.egressRule" -}}
{{- if and .to .ports }}
- ports:
    {{- range .ports }}
    {{- if $.udp }}
    - port: {{ . }}
      protocol: UDP
    {{- end }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
  to:
    {{- toYaml .to | nindent 4 }}
{{- end }}
{{- end }}
