// Entry point for `azd provision` / `azd up`: a resource group per azd environment and everything in it
// (resources.bicep). Only local modules: nothing is fetched from a registry at build time.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment; tags every resource and seeds the unique suffix of their names.')
param environmentName string

@minLength(1)
@description('Region for every resource. It must offer the Flex Consumption plan (az functionapp list-flexconsumption-locations).')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

// The HMAC key. It is never written to an output, a tag or an app setting: it goes into Key Vault, and the app
// setting Signing__Key only refers to it. main.parameters.json maps it to the azd environment variable SIGNING_KEY.
// When SIGNING_KEY is empty, azd generates the value once with a cryptographic random generator (Go crypto/rand),
// stores it as a secret in the azd environment's configuration and reuses it on every later `azd provision`, so
// re-provisioning never rotates the key by accident. The generated value is 64 characters from A-Z, a-z and 0-9,
// all of them base64 digits, so it is itself a valid base64 key: it decodes to 48 bytes carrying about 372 bits of
// entropy (each character is about 5.8 bits the way azd draws them). A key you supply instead
// (`azd env set SIGNING_KEY "$(openssl rand -base64 32)"`) must be base64 of at least 32 random bytes; 44 characters
// is the length of 32 bytes in base64, and the app checks the decoded length again when it starts.
@secure()
@minLength(44)
@description('HMAC-SHA256 signing key, base64 of at least 32 bytes. Leave SIGNING_KEY empty and azd generates one.')
@metadata({
  azd: {
    type: 'generate'
    config: {
      length: 64
      noSpecial: true
    }
  }
})
param signingKey string

// A rotation without a failed verification (docs/deploy.md, "Rotating it"): the key before SIGNING_KEY stays, under the
// id previous, while senders move over, and ACTIVE_SIGNING_KEY_ID says which of the two signs.
@secure()
@description('The signing key before signingKey, kept while a rotation is under way so that what it signed still verifies; empty otherwise.')
param previousSigningKey string = ''

@description('Which key signs: default (signingKey) or previous (previousSigningKey, in a rotation\'s first step).')
@allowed([
  'default'
  'previous'
])
param activeSigningKeyId string = 'default'

@description('Memory per Flex Consumption instance, in MB. See resources.bicep for why 2048.')
@allowed([512, 2048, 4096])
param instanceMemoryMB int = 2048

@description('Concurrent HTTP invocations one instance takes before the platform adds another. See resources.bicep for why 8.')
@minValue(1)
@maxValue(1000)
param httpPerInstanceConcurrency int = 8

@description('Upper bound on on-demand instances for the HTTP functions, which bounds what a runaway load test can cost. 40 is the lowest value most regions accept.')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 40

var tags = {
  'azd-env-name': environmentName
}

// Deterministic per subscription, environment and region, so a second `azd provision` updates the same resources.
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))

resource rg 'Microsoft.Resources/resourceGroups@2021-04-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

module resources 'resources.bicep' = {
  name: 'resources'
  scope: rg
  params: {
    location: location
    tags: tags
    resourceToken: resourceToken
    signingKey: signingKey
    previousSigningKey: previousSigningKey
    activeSigningKeyId: activeSigningKeyId
    instanceMemoryMB: instanceMemoryMB
    httpPerInstanceConcurrency: httpPerInstanceConcurrency
    maximumInstanceCount: maximumInstanceCount
  }
}

// azd writes these outputs into the environment (.azure/<env>/.env); none of them is, or leads to, the key.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_FUNCTION_APP_NAME string = resources.outputs.functionAppName
output SERVICE_API_NAME string = resources.outputs.functionAppName
output SERVICE_API_URI string = resources.outputs.functionAppUri
output AZURE_KEY_VAULT_NAME string = resources.outputs.keyVaultName
output SIGNING_KEY_SECRET_NAME string = resources.outputs.signingKeySecretName
output APPLICATIONINSIGHTS_NAME string = resources.outputs.applicationInsightsName
