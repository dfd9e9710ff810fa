import re,tomllib,sys
import os
D=os.path.dirname(os.path.abspath(__file__))
exec(open(D+'/mc_meta.py').read())
exec(open(D+'/predict.py').read())
course=tomllib.load(open('/work/main/course.toml','rb'))
graded={L['id']:{c['name'] for e in L['exercises'] for c in e['checks']} for L in course['lessons']}
res={}
for line in open(D+'/mc_results.txt'):
    m=re.match(r'(lesson\d\d)-solution misconception-([a-z0-9-]+): (.*)',line)
    if m: res[m.group(2)]=(m.group(1),m.group(3).split())
txt=open('/work/main/course.toml').read()
txt=re.sub(r'\n\[\[lessons\.misconceptions\]\]\n(?:(?!\n\n).)*?\n(?=\n)','\n',txt,flags=re.S)  # idempotent cleanup
notes=['# Misconceptions planted with `cargo test -p <lesson>-solution --features misconception-<id>`:',
       '# id | lesson | exercise | failing graded checks (the course.toml `checks`) | other failing tests','']
missing=[]
for lid,items in META.items():
    blocks=''
    for mid,ex,title,expl in items:
        if mid in res:
            fails=res[mid][1]; tag=''
        else:
            missing.append(mid); fails=PRED[mid]; tag=' (UNVERIFIED: predicted, not yet run)'

        checks=[c for c in fails if c in graded[lid]]
        other=[c for c in fails if c not in graded[lid]]
        notes.append(f'{mid} | {lid} | {ex} | {", ".join(checks) or "NONE"} | {", ".join(other)}{tag}')
        q=lambda s: '"'+s.replace('\\','\\\\').replace('"','\\"')+'"'
        blocks+=f'\n[[lessons.misconceptions]]\nid = {q(mid)}\nexercise = {q(ex)}\ntitle = {q(title)}\nexplanation = {q(expl)}\nchecks = [{", ".join(q(c) for c in checks)}]\n'
    if not blocks: continue
    n=int(lid[6:])+1
    m=re.search(r'\n\n+\[\[lessons\]\]\nid = "lesson%02d"'%n,txt)
    pos=m.start() if m else len(txt.rstrip('\n'))
    txt=txt[:pos]+'\n'+blocks.rstrip('\n')+txt[pos:]
open('/work/main/course.toml','w').write(txt)
open('/work/notes/misconceptions.txt','w').write('\n'.join(notes)+'\n')
print('missing',missing)
