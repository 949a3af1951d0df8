{{/* The chart's name, or nameOverride */}}
{{- define "palette-chatops.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The objects' name: fullnameOverride, or <release>-<name>, or the release alone when it already holds the name */}}
{{- define "palette-chatops.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "palette-chatops.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "palette-chatops.selectorLabels" -}}
app.kubernetes.io/name: {{ include "palette-chatops.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: bot
{{- end -}}

{{- define "palette-chatops.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "palette-chatops.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: palette-chatops
{{- end -}}

{{- define "palette-chatops.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The Secret the pod reads with envFrom: the operator's, or the chart's */}}
{{- define "palette-chatops.secretName" -}}
{{- default (include "palette-chatops.fullname" .) .Values.secret.existingSecret -}}
{{- end -}}

{{/* PostgreSQL is configured: more than one replica may run */}}
{{- define "palette-chatops.postgres" -}}
{{- if or .Values.database.existingSecret .Values.database.url -}}true{{- end -}}
{{- end -}}

{{/*
The checks no schema can express, at render time, so a wrong install never reaches the cluster.
*/}}
{{- define "palette-chatops.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "palette-chatops.postgres" .)) -}}
{{- fail (printf "replicaCount=%d needs PostgreSQL: set database.existingSecret (a Secret holding DATABASE_URL) or database.url. On SQLite each replica would keep its own file (or share one across nodes, which SQLite cannot do safely), and each would lead: every notification posted twice, state split between pods. Use replicaCount=1 for SQLite." (int .Values.replicaCount)) -}}
{{- end -}}
{{- if and .Values.ingress.enabled (ne .Values.slack.mode "http") -}}
{{- fail "ingress.enabled needs slack.mode=http: in Socket Mode Slack sends nothing to the bot, so there is nothing to route" -}}
{{- end -}}
{{- range $name, $value := .Values.config -}}
{{- if regexMatch "TOKEN|SECRET|PASSWORD|API_KEY|IDENTITY_KEY|DATABASE_URL" $name -}}
{{- fail (printf "config.%s looks like a credential: config becomes a ConfigMap, readable by anyone who may read ConfigMaps; put it in secret.values or your existingSecret instead" $name) -}}
{{- end -}}
{{- if hasPrefix "ASSISTANT_" $name -}}
{{- fail (printf "config.%s: the assistant's settings are values of assistant.* (the key: assistant.apiKey or your existingSecret)" $name) -}}
{{- end -}}
{{- if has $name (list "PORT" "METRICS_PORT" "STATE_DB" "SQLITE_DEFAULT_PATH") -}}
{{- fail (printf "config.%s is set by the chart (ports.*, database.*, persistence.*): set those values instead" $name) -}}
{{- end -}}
{{- end -}}
{{- if and (not .Values.secret.existingSecret) .Values.secret.values -}}
{{- range $name, $value := .Values.secret.values -}}
{{- if eq $name "DATABASE_URL" -}}
{{- fail "secret.values.DATABASE_URL: use database.url (or database.existingSecret), so the chart knows PostgreSQL is configured" -}}
{{- end -}}
{{- if and (hasPrefix "ASSISTANT_" $name) (ne $name "ASSISTANT_API_KEY") -}}
{{- fail (printf "secret.values.%s: the assistant's settings are values of assistant.*" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- with .Values.assistant -}}
{{- if .enabled -}}
{{- if not .model -}}
{{- fail "assistant.enabled needs assistant.model: the model's name (gpt-4.1-mini, claude-sonnet-4-5, llama3.1:8b)" -}}
{{- end -}}
{{- if and (eq .provider "openai-compatible") (not .baseUrl) -}}
{{- fail "assistant.provider=openai-compatible needs assistant.baseUrl: the server's /v1 base, e.g. http://vllm:8000/v1" -}}
{{- end -}}
{{- if and .apiKey $.Values.secret.existingSecret -}}
{{- fail (printf "assistant.apiKey is not used with secret.existingSecret: put ASSISTANT_API_KEY in the Secret %s instead" $.Values.secret.existingSecret) -}}
{{- end -}}
{{- if and (ne .provider "openai-compatible") (not .apiKey) (not $.Values.secret.existingSecret) (not (index $.Values.secret.values "ASSISTANT_API_KEY")) -}}
{{- fail (printf "assistant.provider=%s needs its key: set assistant.apiKey, or ASSISTANT_API_KEY in secret.existingSecret" .provider) -}}
{{- end -}}
{{- if and .apiKey (index $.Values.secret.values "ASSISTANT_API_KEY") -}}
{{- fail "the assistant's key is set twice: keep assistant.apiKey or secret.values.ASSISTANT_API_KEY, not both" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The pod's environment: the ConfigMap, then the Secret (later wins), then only DATABASE_URL */}}
{{- define "palette-chatops.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "palette-chatops.fullname" . }}
  - secretRef:
      name: {{ include "palette-chatops.secretName" . }}
{{- if include "palette-chatops.postgres" . }}
env:
  - name: DATABASE_URL
    valueFrom:
      secretKeyRef:
        {{- if .Values.database.existingSecret }}
        name: {{ .Values.database.existingSecret }}
        key: {{ .Values.database.secretKey }}
        {{- else }}
        name: {{ include "palette-chatops.fullname" . }}-database
        key: DATABASE_URL
        {{- end }}
{{- end }}
{{- end -}}

{{- define "palette-chatops.podSecurityContext" -}}
runAsNonRoot: true
# the `node` user of the node:22 image
runAsUser: 1000
runAsGroup: 1000
# makes the volume writable by that user
fsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "palette-chatops.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}
