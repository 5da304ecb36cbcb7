using Signing.Http;
using Signing.WireFloor;

var builder = WebApplication.CreateBuilder(args);

// SigningServer's Kestrel, limits, socket buffer, receive blocks and body size included, so that the floor and a
// strategy differ only in the endpoint.
builder.WebHost.ConfigureKestrel(kestrel =>
{
    SigningKestrelLimits.ApplyClientFacing(kestrel.Limits);
    SigningKestrelLimits.ApplyBodyLimit(kestrel.Limits, new SigningOptions().MaxRequestBodyBytes);
});
builder.WebHost.UseSockets(SigningKestrelLimits.ApplyReadBuffer);
SigningKestrelLimits.ApplyReceiveBlocks(builder.Services);

if (!FloorKey.TryRead(builder.Configuration, out var key, out var problem))
{
    // One line naming the setting, as SigningServer does for its own.
    Console.Error.WriteLine($"The wire floor cannot start: {FloorKey.SettingName} {problem}.");
    return 1;
}

var app = builder.Build();
var floor = new DrainAndHmac(key);
app.MapPost("/api/sign", floor.HandleAsync);
app.Run();
return 0;
