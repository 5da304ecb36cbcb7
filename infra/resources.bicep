// Everything the Functions app needs, in one resource group: a user-assigned identity and the roles it holds, storage
// reached only through that identity, monitoring without local auth, the Key Vault that holds the signing key, and the
// Flex Consumption plan and app. Written out directly: public registry modules can't be fetched where this is built.

@description('Region for every resource.')
param location string

@description('Tags for every resource; main.bicep sets azd-env-name.')
param tags object

@description('Unique, stable suffix for globally unique names: main.bicep\'s uniqueString, always 13 characters, which keeps the storage account\'s name (st + token) within its 3 to 24.')
@minLength(13)
@maxLength(13)
param resourceToken string

@secure()
@description('HMAC-SHA256 signing key, base64. Stored in Key Vault and nowhere else.')
param signingKey string

@secure()
@description('During a rotation, the signing key before the current one, base64; empty otherwise. Stored in Key Vault and nowhere else.')
param previousSigningKey string = ''

@description('The id of the key that signs: default (the current key) or previous (the one before it, in a rotation\'s first step).')
@allowed([
  'default'
  'previous'
])
param activeSigningKeyId string = 'default'

// Instance memory: 2048 MB, the size Flex gives an app unless told otherwise, and one vCPU. Signing is CPU-bound
// (parse, re-serialise, HMAC: about 10 ms per 1 MB envelope in the write-up's measurements, on one core), so a bigger
// instance buys cores the per-request work can't use rather than faster requests, at twice the price per second.
// 512 MB gets a quarter of a vCPU, stretching every request about four-fold, and can't hold a few of the largest
// bodies the app accepts (Signing:MaxRequestBodyBytes, 32 MiB) at once.
// What each allowed size holds, with default settings, as the app computes it at start-up and logs it ("In-flight
// budget ... largest body per strategy"): the worker's budget is 40% of the instance's memory less 108,236,800 bytes
// for Kestrel's buffers (100 connections of 1 MiB, 17 KiB read ahead and a 16 KiB receive block;
// src/Signing.Http/Memory/InFlightBudgetSizing.cs), and each strategy takes the largest body whose charge fits it, at
// most 32 MiB (StrategyBodyLimits.cs). Measured 27 November 2026 by starting SigningServer with
// Signing__MaxInFlightBytes set to that budget (docs/deploy.md has the commands):
//   512 MB:  budget 106,511,360 B; string 12,496,052 B, memorystream 14,162,193, recyclable and recyclablehash
//            23,603,655, streaming 30,347,556, utf8 and transcode 32 MiB. It starts; larger bodies get a 413 naming
//            the strategies that take them.
//   2048 MB: budget 750,755,840 B; every strategy takes 32 MiB.
//   4096 MB: budget 1,609,749,504 B; every strategy takes 32 MiB.
@description('Memory per instance, in MB.')
@allowed([512, 2048, 4096])
param instanceMemoryMB int

// HTTP concurrency per instance: 8 rather than the platform's default of 16 for a 2048 MB .NET app. With one vCPU and
// CPU-bound requests, more than a handful in flight on one instance only queue for the CPU: they add latency, not
// throughput, and past that point it is better for Flex to add an instance. Memory is bounded by the app itself, not by
// this number: every request is charged what it holds, as it comes to hold it (Signing:MaxInFlightBytes, src/Signing.Http/Memory), against
// 40% of the memory the worker's runtime may use, less Kestrel's per-connection buffers, which leaves the Functions host
// its share of the 2,048 MB. That budget holds 8 typical 1 MB requests many times over and two 32 MiB requests of the
// costliest strategy ('string', charged about 8.5 times its body) at once; past it a request gets 503 with Retry-After,
// never an out-of-memory failure. On Flex Consumption this setting, not host.json's extensions.http throttles, is what
// bounds concurrency per instance, so host.json sets none.
@description('Concurrent HTTP invocations per instance before the platform scales out.')
@minValue(1)
@maxValue(1000)
param httpPerInstanceConcurrency int

@description('Upper bound on on-demand instances for the HTTP functions.')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int

var deploymentContainerName = 'deployment-package'
var signingKeySecretName = 'signing-key'
var previousSigningKeySecretName = 'signing-key-previous'

// Built-in role definitions (https://learn.microsoft.com/azure/role-based-access-control/built-in-roles).
var roles = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
}

// ---------------------------------------------------------------------------------------------------------------
// Identity: the app reaches storage, Key Vault and Application Insights as this identity, with no key or connection
// secret anywhere in its settings.
// ---------------------------------------------------------------------------------------------------------------

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: 'id-${resourceToken}'
  location: location
  tags: tags
}

// ---------------------------------------------------------------------------------------------------------------
// Storage: the Functions host's own storage (AzureWebJobsStorage: locks and function keys, in blobs) and the container
// Flex Consumption deploys the app package from. Shared keys are off, so only Entra ID identities get in.
// ---------------------------------------------------------------------------------------------------------------

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: 'st${resourceToken}'
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: 'Standard_LRS'
  }
  properties: {
    accessTier: 'Hot'
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    dnsEndpointType: 'Standard'
    minimumTlsVersion: 'TLS1_2'
    publicNetworkAccess: 'Enabled'
    supportsHttpsTrafficOnly: true
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Blob is all the host needs for HTTP-only functions; queue and table roles would be for other triggers.
resource storageBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, identity.id, roles.storageBlobDataOwner)
  scope: storage
  properties: {
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.storageBlobDataOwner)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Monitoring: Application Insights on a Log Analytics workspace. Local (instrumentation key) auth is off, so the host
// publishes telemetry as the identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING below), and so does the app's own
// metrics exporter (Signing__MetricsExport__ManagedIdentityClientId below); Monitoring Metrics Publisher lets both.
// ---------------------------------------------------------------------------------------------------------------

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: 'log-${resourceToken}'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: 'appi-${resourceToken}'
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    DisableLocalAuth: true
  }
}

resource monitoringMetricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, identity.id, roles.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
  }
}

// The comparison a k6 run is for, per strategy and added up over every instance, which /api/stats (one instance's
// snapshot) cannot give once the app has scaled out. The charts' queries are in signing-workbook.json; docs/deploy.md
// explains each. A workbook's name must be a GUID: this one is stable per Application Insights resource.
var strategyWorkbookContent = union(loadJsonContent('signing-workbook.json'), {
  fallbackResourceIds: [
    applicationInsights.id
  ]
})

resource strategyWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(applicationInsights.id, 'signing-strategies')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'Signing strategies under load'
    category: 'workbook'
    sourceId: applicationInsights.id
    serializedData: string(strategyWorkbookContent)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Key Vault: holds the signing key. Access is by Azure RBAC only; the app's identity may read secrets and nothing else.
// ---------------------------------------------------------------------------------------------------------------

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: 'kv-${resourceToken}'
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Allow'
    }
  }
}

// Only while a rotation is under way. Once previousSigningKey is empty again the secret stays in the vault, unread
// (disable it as signing-key's old versions are disabled).
resource previousSigningKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(previousSigningKey)) {
  parent: keyVault
  name: previousSigningKeySecretName
  properties: {
    value: previousSigningKey
    contentType: 'base64'
    attributes: {
      enabled: true
    }
  }
}

// Writing the same value again creates no new version, so re-provisioning with the same key changes nothing; a new
// value becomes the secret's latest version, which is what the app's reference (no version in it) resolves to.
resource signingKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: keyVault
  name: signingKeySecretName
  properties: {
    value: signingKey
    contentType: 'base64'
    attributes: {
      enabled: true
    }
  }
}

resource keyVaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(keyVault.id, identity.id, roles.keyVaultSecretsUser)
  scope: keyVault
  properties: {
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.keyVaultSecretsUser)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The Flex Consumption plan and the Functions app.
// ---------------------------------------------------------------------------------------------------------------

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: 'plan-${resourceToken}'
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: 'func-${resourceToken}'
  location: location
  // azd deploys the azure.yaml service 'api' to the resource carrying this tag.
  tags: union(tags, { 'azd-service-name': 'api' })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    clientAffinityEnabled: false
    publicNetworkAccess: 'Enabled'
    // Key Vault references in app settings resolve as this identity.
    keyVaultReferenceIdentity: identity.id
    siteConfig: {
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      ftpsState: 'Disabled'
    }
    // Flex Consumption takes the language and version from here, not from app settings.
    functionAppConfig: {
      runtime: {
        name: 'dotnet-isolated'
        version: '10.0'
      }
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identity.id
          }
        }
      }
      // The reasons for these values are with their parameters at the top of this file.
      scaleAndConcurrency: {
        instanceMemoryMB: instanceMemoryMB
        maximumInstanceCount: maximumInstanceCount
        triggers: {
          http: {
            perInstanceConcurrency: httpPerInstanceConcurrency
          }
        }
      }
    }
  }
  dependsOn: [
    deploymentContainer
  ]
}

// The whole set of app settings (this resource replaces whatever was there). Deliberately absent:
// - the runtime settings older plans needed: Flex takes them from functionAppConfig above and rejects them here;
// - any *_ENVIRONMENT setting: the app runs as Production, where it refuses the committed development key;
// - any storage connection string or instrumentation key: the identity stands in for both.
resource appSettings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: functionApp
  name: 'appsettings'
  properties: {
    AzureWebJobsStorage__credential: 'managedidentity'
    AzureWebJobsStorage__clientId: identity.properties.clientId
    AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
    APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsights.properties.ConnectionString
    APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identity.properties.clientId};Authorization=AAD'
    // The worker's OpenTelemetry exporter does not read the line above: it signs in as the identity named here, and
    // sends the Signing, ASP.NET Core and runtime meters to the connection string's resource.
    Signing__MetricsExport__ManagedIdentityClientId: identity.properties.clientId
    // A reference, not the key: App Service reads the secret's latest version as the identity and hands the app the
    // value as the environment variable Signing__Key (configuration Signing:Key).
    Signing__Key: '@Microsoft.KeyVault(VaultName=${keyVault.name};SecretName=${signingKeySecret.name})'
    // Which key signs, named even when there is one (default is Signing__Key's id), so that previous without a previous
    // key stops the app at start-up with a line naming the setting instead of signing with the other key.
    Signing__ActiveKeyId: activeSigningKeyId
    // During a rotation, the key before, as the key with id previous: it verifies, and signs if activeSigningKeyId says so.
    ...(empty(previousSigningKey)
      ? {}
      : {
          Signing__Keys__previous: '@Microsoft.KeyVault(VaultName=${keyVault.name};SecretName=${previousSigningKeySecretName})'
        })
  }
  // The host starts as soon as its settings change: let it find its roles already granted.
  dependsOn: [
    previousSigningKeySecret
    storageBlobDataOwner
    keyVaultSecretsUser
    monitoringMetricsPublisher
  ]
}

// FTP and basic-auth publishing off: deployments (azd included) authenticate with Entra ID.
resource ftpPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'ftp'
  properties: {
    allow: false
  }
}

resource scmPublishing 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'scm'
  properties: {
    allow: false
  }
}

output functionAppName string = functionApp.name
output functionAppUri string = 'https://${functionApp.properties.defaultHostName}'
output keyVaultName string = keyVault.name
output signingKeySecretName string = signingKeySecret.name
output applicationInsightsName string = applicationInsights.name
