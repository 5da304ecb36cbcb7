namespace SigningFunctions.Tests;

/// <summary>
/// The tests that need the published app: one publish for all of them, and one worker per set of settings. They run
/// one after another, which keeps the few worker processes from competing for the machine's cores.
/// </summary>
[CollectionDefinition(Name)]
public sealed class PublishedWorkerGroup : ICollectionFixture<PublishedWorker>
{
    public const string Name = "Published worker";
}
