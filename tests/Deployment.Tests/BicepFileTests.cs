namespace Deployment.Tests;

/// <summary>The reader the Bicep checks rely on: it must find real mistakes and not be fooled by comments or strings.</summary>
public sealed class BicepFileTests
{
    [Fact]
    public void A_well_formed_template_has_no_problems()
    {
        var bicep = BicepFile.Parse("""
            param name string // a comment with { and '
            /* a block comment with } */
            var greeting = 'hello ${name == 'x' ? '${toUpper(name)}}' : '{'} \'quoted\' \${literal}'
            var text = '''
            multi { line '
            '''
            resource r 'Microsoft.Web/sites@2024-04-01' = {
              name: name
              properties: { list: [1, (2)] }
            }
            """);
        Assert.Empty(bicep.Problems);
    }

    [Theory]
    [InlineData("resource r 'A.B/c@2024-01-01' = {\n  properties: {\n}\n", "never closed")]
    [InlineData("var a = [1, 2}\n", "closes '['")]
    [InlineData("var a = 1)\n", "closes nothing")]
    [InlineData("var a = 'unterminated\nvar b = 1\n", "end of the line")]
    [InlineData("var a = '${b'\n", "never closed")]
    [InlineData("/* never closed\nvar a = 1\n", "comment is never closed")]
    [InlineData("var a = '''\nnever closed\n", "string is never closed")]
    public void Malformed_templates_are_reported(string text, string expected)
    {
        var problems = BicepFile.Parse(text).Problems;
        Assert.Contains(problems, p => p.Contains(expected, StringComparison.Ordinal));
    }

    [Fact]
    public void Comments_are_blanked_from_code_and_string_contents_from_the_skeleton()
    {
        var bicep = BicepFile.Parse("var a = 'FUNCTIONS_WORKER_RUNTIME' // FUNCTIONS_EXTENSION_VERSION\n");
        Assert.Contains("FUNCTIONS_WORKER_RUNTIME", bicep.Code, StringComparison.Ordinal);
        Assert.DoesNotContain("FUNCTIONS_EXTENSION_VERSION", bicep.Code, StringComparison.Ordinal);
        Assert.DoesNotContain("FUNCTIONS_WORKER_RUNTIME", bicep.Skeleton, StringComparison.Ordinal);
        Assert.Equal(bicep.Text.Length, bicep.Code.Length);
    }

    [Fact]
    public void Declarations_carry_their_decorators_and_values()
    {
        var bicep = BicepFile.Parse("""
            @secure()
            @metadata({
              azd: { type: 'generate' }
            })
            param key string

            param size int = 2048

            resource site 'Microsoft.Web/sites@2024-04-01' = {
              name: 'x'
            }

            output url string = 'https://${site.name}'
            """);

        var declarations = bicep.Declarations();
        Assert.Equal(["param key", "param size", "resource site", "output url"], declarations.Select(d => d.ToString()));
        Assert.True(declarations[0].HasDecorator("secure"));
        Assert.True(declarations[0].HasDecorator("metadata"));
        Assert.Null(declarations[0].Value);
        Assert.False(declarations[1].HasDecorator("secure"));
        Assert.Equal("2048", declarations[1].Value);
        Assert.Equal("Microsoft.Web/sites", declarations[2].ResourceType);
        Assert.Contains("name: 'x'", declarations[2].Body, StringComparison.Ordinal);
        Assert.Equal("'https://${site.name}'", declarations[3].Value);
    }

    [Fact]
    public void Object_properties_are_found_by_name_and_not_inside_strings()
    {
        var body = "resource s 'A.B/c@2024-01-01' = {\n  x: '{ runtime: { name: 1 } }'\n  runtime: {\n    name: 'dotnet-isolated'\n  }\n}";
        Assert.Equal("name: 'dotnet-isolated'", BicepFile.ObjectProperty(body, "runtime").Trim());
    }
}
