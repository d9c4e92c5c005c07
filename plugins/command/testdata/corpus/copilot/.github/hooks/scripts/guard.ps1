# Windows' guard: read and never run on a server.
$null = [Console]::In.ReadToEnd()
