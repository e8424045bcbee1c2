/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * The script inlined in every SVG flame graph (svg.c). It reads what the writer put in the
 * file: the frames' <rect> positions, data-v values and <title> names, and on the root the
 * total, the unit, the margin and the character width. Click a frame: it fills the width,
 * its ancestors stay below it (dimmed), everything else hides; "Reset zoom" or Escape undoes
 * it. Ctrl-F, '/' or "Search" prompt for a regular expression (or a plain string when it is
 * not one): matching frames turn magenta and the matched share of the total is shown, nested
 * matches counted once. Frame labels are refitted to their new width after a zoom.
 */
#include "formats/svg.h"

const char svg__script[] =
	"(function(){\n"
	"var svg=document.documentElement,D=function(id){return document.getElementById(id);};\n"
	"var total=+svg.getAttribute('data-total'),unit=svg.getAttribute('data-unit');\n"
	"var M=+svg.getAttribute('data-m'),CW=+svg.getAttribute('data-cw');\n"
	"var W=+svg.getAttribute('width')-2*M,fr=[],gs=D('frames').children,hit=null;\n"
	"for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0];\n"
	" var tt=g.getElementsByTagName('title')[0].textContent.split('\\n');\n"
	" fr.push({g:g,r:r,t:g.getElementsByTagName('text')[0],name:tt[0],info:tt[1],\n"
	"  x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),\n"
	"  v:+r.getAttribute('data-v'),fill:r.getAttribute('fill')});g.setAttribute('data-i',i);}\n"
	"function fmt(v){if(unit!='bytes')\n"
	" return String(v).replace(/\\B(?=(\\d{3})+$)/g,',')+' '+unit;\n"
	" if(v<1000)return v+' B';var u=['KiB','MiB','GiB','TiB'],k=-1;\n"
	" do{v/=1024;k++;}while(v>=999.95&&k<3);return v.toFixed(1)+' '+u[k];}\n"
	"function fit(f,x,w){f.r.setAttribute('x',x.toFixed(2));\n"
	" f.r.setAttribute('width',w.toFixed(2));\n"
	" f.t.setAttribute('x',(x+3).toFixed(2));var n=Math.floor((w-6)/CW),s=f.name;\n"
	" f.t.textContent=n<3?'':s.length>n?s.slice(0,n-2)+'..':s;}\n"
	"function show(f,on,dim){f.g.style.display=on?'':'none';f.g.style.opacity=dim?'0.6':'';}\n"
	"function zoom(z){var s=W/z.w,e=1e-3;fr.forEach(function(f){\n"
	" var inside=f.y<=z.y&&f.x>=z.x-e&&f.x+f.w<=z.x+z.w+e;\n"
	" var below=f.y>z.y&&f.x<=z.x+e&&f.x+f.w>=z.x+z.w-e;show(f,inside||below,below);\n"
	" if(inside)fit(f,M+(f.x-z.x)*s,f.w*s);else if(below)fit(f,M,W);});\n"
	" D('reset').style.display='';}\n"
	"function unzoom(){fr.forEach(function(f){show(f,true,false);fit(f,f.x,f.w);});\n"
	" D('reset').style.display='none';}\n"
	"function clear(){hit=null;fr.forEach(function(f){f.r.setAttribute('fill',f.fill);});\n"
	" D('matched').textContent=' ';D('search').textContent='Search (Ctrl-F)';}\n"
	"function search(term){if(!term){clear();return;}var re=null,m=[],sum=0,end=-1;\n"
	" try{re=new RegExp(term);}catch(e){}\n"
	" fr.forEach(function(f){var ok=re?re.test(f.name):f.name.indexOf(term)>=0;\n"
	"  f.r.setAttribute('fill',ok?'#e040fb':f.fill);if(ok)m.push(f);});\n"
	" m.sort(function(a,b){return a.x-b.x||b.y-a.y;});\n"
	" m.forEach(function(f){if(f.x+f.w>end+1e-3){sum+=f.v;end=f.x+f.w;}});\n"
	" hit=term;D('search').textContent='Clear search';\n"
	" D('matched').textContent='Matched \"'+term+'\": '+m.length+' frames, '+fmt(sum)+', '+\n"
	"  (total?100*sum/total:0).toFixed(2)+'% of all';}\n"
	"function ask(){var t=window.prompt('Search frames (regular expression)',hit||'');\n"
	" if(t!==null)search(t);}\n"
	"function frame(e){var n=e.target;\n"
	" while(n&&n!==svg&&!(n.getAttribute&&n.getAttribute('data-i')))\n"
	" n=n.parentNode;return n&&n!==svg?fr[+n.getAttribute('data-i')]:null;}\n"
	"D('frames').addEventListener('click',function(e){var f=frame(e);if(f)zoom(f);});\n"
	"D('frames').addEventListener('mouseover',function(e){var f=frame(e);\n"
	" D('details').textContent=f?f.name+': '+f.info:' ';});\n"
	"D('reset').addEventListener('click',unzoom);\n"
	"D('search').addEventListener('click',function(){if(hit!==null)clear();else ask();});\n"
	"document.addEventListener('keydown',function(e){\n"
	" if(((e.ctrlKey||e.metaKey)&&e.key=='f')||e.key=='/'){e.preventDefault();ask();}\n"
	" else if(e.key=='Escape'){clear();unzoom();}});\n"
	"})();\n";
