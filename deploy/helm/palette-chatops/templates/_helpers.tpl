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

{{/* The release's pods, bot and doctor alike: what the NetworkPolicy selects */}}
{{- define "palette-chatops.instanceLabels" -}}
app.kubernetes.io/name: {{ include "palette-chatops.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The bot's pods only: the Deployment, the Service and the PodDisruptionBudget select these */}}
{{- define "palette-chatops.selectorLabels" -}}
{{ include "palette-chatops.instanceLabels" . }}
app.kubernetes.io/component: bot
{{- end -}}

{{/* Labels every object carries besides its selector labels */}}
{{- define "palette-chatops.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: palette-chatops
{{- end -}}

{{- define "palette-chatops.labels" -}}
{{ include "palette-chatops.commonLabels" . }}
{{ include "palette-chatops.selectorLabels" . }}
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
Each lives beside what it checks and is included by the template that renders it, so Helm's
error names that template: the Deployment (replicas), the ConfigMap (config, assistant), the
Secret (credentials), the Ingress.
*/}}
{{- define "palette-chatops.validateReplicas" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "palette-chatops.postgres" .)) -}}
{{- fail (printf "replicaCount=%d needs PostgreSQL: set database.existingSecret (a Secret holding DATABASE_URL) or database.url. On SQLite each replica would keep its own file (or share one across nodes, which SQLite cannot do safely), and each would lead: every notification posted twice, state split between pods. Use replicaCount=1 for SQLite." (int .Values.replicaCount)) -}}
{{- end -}}
{{- end -}}

{{- define "palette-chatops.validateIngress" -}}
{{- if and .Values.ingress.enabled (ne .Values.slack.mode "http") -}}
{{- fail "ingress.enabled needs slack.mode=http: in Socket Mode Slack sends nothing to the bot, so there is nothing to route" -}}
{{- end -}}
{{- end -}}

{{- define "palette-chatops.validateConfig" -}}
{{- range $name, $value := .Values.config -}}
{{- if regexMatch "TOKEN|SECRET|PASSWORD|API_KEY|IDENTITY_KEY|DATABASE_URL" $name -}}
{{- fail (printf "config.%s looks like a credential: config becomes a ConfigMap, readable by anyone who may read ConfigMaps; put it in secret.values or your existingSecret instead" $name) -}}
{{- end -}}
{{- if hasPrefix "ASSISTANT_" $name -}}
{{- fail (printf "config.%s: the assistant's settings are values of assistant.* (the key: assistant.apiKey or your existingSecret)" $name) -}}
{{- end -}}
{{- if has $name (list "PORT" "METRICS_PORT" "STATE_DB" "SQLITE_DEFAULT_PATH" "NODE_EXTRA_CA_CERTS") -}}
{{- fail (printf "config.%s is set by the chart (ports.*, database.*, persistence.*, caBundle.*): set those values instead" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "palette-chatops.validateAssistant" -}}
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

{{/*
The credentials: from the operator's Secret or from secret.values, never both (the chart's
Secret is not rendered beside existingSecret, so secret.values there would be silently lost).
Without existingSecret, the chart's Secret must hold what the bot cannot start without; a
variable given by extraEnv or a Secret in extraEnvFrom counts too.
*/}}
{{- define "palette-chatops.validateSecret" -}}
{{- $values := .Values.secret.values | default dict -}}
{{- if and .Values.secret.existingSecret $values -}}
{{- fail (printf "secret.values is not used with secret.existingSecret: the chart creates no Secret then, so %s would be lost; put them in the Secret %s instead, or drop existingSecret" (keys $values | sortAlpha | join ", ") .Values.secret.existingSecret) -}}
{{- end -}}
{{- range $name, $value := $values -}}
{{- if eq $name "DATABASE_URL" -}}
{{- fail "secret.values.DATABASE_URL: use database.url (or database.existingSecret), so the chart knows PostgreSQL is configured" -}}
{{- end -}}
{{- if and (hasPrefix "ASSISTANT_" $name) (ne $name "ASSISTANT_API_KEY") -}}
{{- fail (printf "secret.values.%s: the assistant's settings are values of assistant.*" $name) -}}
{{- end -}}
{{- end -}}
{{- if and (not .Values.secret.existingSecret) (not .Values.extraEnvFrom) -}}
{{- $given := dict -}}
{{- range $name, $value := $values -}}
{{- if ne (toString $value) "" -}}{{- $_ := set $given $name true -}}{{- end -}}
{{- end -}}
{{- range .Values.extraEnv -}}{{- $_ := set $given .name true -}}{{- end -}}
{{- $missing := list -}}
{{- if not (hasKey $given "SLACK_BOT_TOKEN") -}}{{- $missing = append $missing "SLACK_BOT_TOKEN" -}}{{- end -}}
{{- $slackKey := ternary "SLACK_SIGNING_SECRET" "SLACK_APP_TOKEN" (eq .Values.slack.mode "http") -}}
{{- if not (hasKey $given $slackKey) -}}{{- $missing = append $missing $slackKey -}}{{- end -}}
{{- $password := and (hasKey $given "PALETTE_EMAIL") (hasKey $given "PALETTE_ORG") (hasKey $given "PALETTE_PASSWORD") -}}
{{- if not (or (hasKey $given "PALETTE_API_KEY") $password) -}}{{- $missing = append $missing "PALETTE_API_KEY (or PALETTE_EMAIL, PALETTE_ORG and PALETTE_PASSWORD)" -}}{{- end -}}
{{- if $missing -}}
{{- fail (printf "no credentials for the bot: %s missing. Give them one of two ways: secret.existingSecret, a Secret you create (kubectl create secret generic palette-chatops --from-env-file=.env), or secret.values (SLACK_BOT_TOKEN, %s, PALETTE_API_KEY) for the chart's own Secret" (join ", " $missing) $slackKey) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The chart's ConfigMap data (also hashed into the pods' checksum/config) */}}
{{- define "palette-chatops.configData" -}}
PORT: {{ .Values.ports.http | quote }}
METRICS_PORT: {{ .Values.ports.metrics | quote }}
{{- if not (hasKey .Values.config "AUDIT_TMP_BYTES") }}
# /tmp's sizeLimit (values: tmpVolume) in bytes: an audit export is refused when it would not fit
AUDIT_TMP_BYTES: {{ mul .Values.tmpVolume.sizeLimitMiB 1048576 | toString | quote }}
{{- end }}
{{- with .Values.assistant }}
{{- if .enabled }}
# the assistant (values: assistant); its key is in the Secret
ASSISTANT_PROVIDER: {{ .provider | quote }}
ASSISTANT_MODEL: {{ .model | quote }}
{{- if .baseUrl }}
ASSISTANT_BASE_URL: {{ .baseUrl | quote }}
{{- end }}
ASSISTANT_MAX_TOOL_CALLS: {{ .maxToolCalls | toString | quote }}
ASSISTANT_TOKEN_BUDGET: {{ int64 .tokenBudget | toString | quote }}
ASSISTANT_PER_USER_PER_HOUR: {{ .perUserPerHour | toString | quote }}
ASSISTANT_TIMEOUT_MS: {{ int64 .timeoutMs | toString | quote }}
ASSISTANT_HISTORY_DAYS: {{ .historyDays | toString | quote }}
ASSISTANT_AUDIT_TEXT: {{ .auditText | toString | quote }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.config }}
{{- if ne (toString $value) "" }}
{{ $name }}: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The chart's Secret data from secret.values and assistant.apiKey; empty values left out */}}
{{- define "palette-chatops.secretData" -}}
{{- $data := dict -}}
{{- range $name, $value := .Values.secret.values -}}
{{- if ne (toString $value) "" -}}
{{- $_ := set $data $name (toString $value) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.assistant.enabled .Values.assistant.apiKey -}}
{{- $_ := set $data "ASSISTANT_API_KEY" (toString .Values.assistant.apiKey) -}}
{{- end -}}
{{- if $data -}}{{- toYaml $data -}}{{- else -}}{}{{- end -}}
{{- end -}}

{{/*
What the pods' checksum/secret hashes: the chart's Secrets as rendered; with existingSecret (and
database.existingSecret), those Secrets' data as the cluster holds them now, read by Helm's
`lookup` at install and upgrade, so rotating a credential and running `helm upgrade` restarts
the pods. `helm template` and GitOps tools that render without a cluster (Argo CD) get an empty
lookup: there, `kubectl rollout restart` after a rotation (docs/install.md).
*/}}
{{- define "palette-chatops.secretChecksum" -}}
{{- $parts := list (include "palette-chatops.secretData" .) (.Values.database.url | default "") -}}
{{- range (list .Values.secret.existingSecret .Values.database.existingSecret) -}}
{{- if . -}}
{{- $found := lookup "v1" "Secret" $.Release.Namespace . | default dict -}}
{{- $parts = append $parts (toJson (get $found "data")) -}}
{{- end -}}
{{- end -}}
{{- join "\n" $parts | sha256sum -}}
{{- end -}}

{{/* The pod's environment: the ConfigMap, then the Secret, then extraEnvFrom (later wins); env last */}}
{{- define "palette-chatops.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "palette-chatops.fullname" . }}
  - secretRef:
      name: {{ include "palette-chatops.secretName" . }}
  {{- with .Values.extraEnvFrom }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- $postgres := include "palette-chatops.postgres" . }}
{{- if or $postgres .Values.caBundle.configMap .Values.caBundle.secret .Values.extraEnv }}
env:
  {{- if $postgres }}
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
  {{- if include "palette-chatops.caBundle" . }}
  # read by Node at start: Palette's, Slack's, the model's and the proxy's TLS trust these too
  - name: NODE_EXTRA_CA_CERTS
    value: {{ include "palette-chatops.caBundlePath" . | quote }}
  {{- end }}
  {{- with .Values.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* A CA bundle is configured (caBundle.configMap or caBundle.secret) */}}
{{- define "palette-chatops.caBundle" -}}
{{- if or .Values.caBundle.configMap .Values.caBundle.secret -}}true{{- end -}}
{{- end -}}

{{- define "palette-chatops.caBundlePath" -}}
{{- printf "/etc/palette-chatops/ca/%s" .Values.caBundle.key -}}
{{- end -}}

{{/* The volumes both the bot and the doctor mount besides their own: /tmp, the CA, extraVolumes */}}
{{- define "palette-chatops.sharedVolumes" -}}
{{- if include "palette-chatops.caBundle" . }}
- name: ca-bundle
  {{- if .Values.caBundle.configMap }}
  configMap:
    name: {{ .Values.caBundle.configMap }}
    items:
      - key: {{ .Values.caBundle.key }}
        path: {{ .Values.caBundle.key }}
  {{- else }}
  secret:
    secretName: {{ .Values.caBundle.secret }}
    items:
      - key: {{ .Values.caBundle.key }}
        path: {{ .Values.caBundle.key }}
  {{- end }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "palette-chatops.sharedVolumeMounts" -}}
{{- if include "palette-chatops.caBundle" . }}
- name: ca-bundle
  mountPath: /etc/palette-chatops/ca
  readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The pod's security context: podSecurityContext as given; with openshift: true, without runAsUser,
runAsGroup and fsGroup, which OpenShift's restricted-v2 SCC assigns from the namespace's range
(and refuses when the pod names others).
*/}}
{{- define "palette-chatops.podSecurityContext" -}}
{{- $context := deepCopy .Values.podSecurityContext -}}
{{- if .Values.openshift -}}
{{- $context = omit $context "runAsUser" "runAsGroup" "fsGroup" -}}
{{- end -}}
{{- toYaml $context -}}
{{- end -}}

{{- define "palette-chatops.containerSecurityContext" -}}
{{- $context := deepCopy .Values.securityContext -}}
{{- if .Values.openshift -}}
{{- $context = omit $context "runAsUser" "runAsGroup" -}}
{{- end -}}
{{- toYaml $context -}}
{{- end -}}

{{/* The pods' service account: the one the chart creates, a named one, or the namespace's default */}}
{{- define "palette-chatops.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "palette-chatops.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Scheduling and identity both pods share: service account, priority, pull secrets, node placement */}}
{{- define "palette-chatops.podPlacement" -}}
{{- if or .Values.serviceAccount.create .Values.serviceAccount.name -}}
serviceAccountName: {{ include "palette-chatops.serviceAccountName" . }}
{{ end -}}
# The bot talks to Slack and Palette, never to the Kubernetes API.
automountServiceAccountToken: false
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
securityContext:
  {{- include "palette-chatops.podSecurityContext" . | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
